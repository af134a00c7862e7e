//! The rename intents (`rename`, `rename-local`) on real code: every site they find on
//! every embedded substrate applies and leaves every Python file parsing, and a few sites
//! (a deterministic pick) leave the substrate's own suite passing under the real runner.
//!
//! `measure_rename_sites` (ignored) counts the sites per substrate and runs the suite on
//! all of them; with `MERGEFORGE_REAL_PROJECTS=<folder of unpacked sdists>` it does the
//! same on the real projects of `substrates/real-projects/` found there (a sample of 10
//! sites per kind and project).

use std::path::Path;
use std::time::Duration;

use mergeforge::intent::{Kind, Site, Workspace};
use mergeforge::pytest::testrun::TestRunner;
use mergeforge::python::PyModule;
use mergeforge::snapshot::{self, Snapshot};
use mergeforge::substrate::{self, Substrate, SubstrateSpec};

use crate::common::root;

const KINDS: [Kind; 2] = [Kind::Rename, Kind::RenameLocal];

fn load(dir: &Path, config: Option<&Path>) -> Substrate {
    let spec =
        SubstrateSpec { path: dir.to_path_buf(), config_file: config.map(Path::to_path_buf), test_command: None };
    substrate::load(&spec).unwrap_or_else(|e| panic!("{}: {e:#}", dir.display()))
}

fn embedded() -> Vec<Substrate> {
    let mut dirs: Vec<_> = std::fs::read_dir(root().join("substrates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("substrate.toml").is_file())
        .collect();
    dirs.sort();
    dirs.iter().map(|d| load(d, None)).collect()
}

fn modules(substrate: &Substrate) -> Vec<PyModule> {
    substrate.mutable_sources().iter().filter_map(|s| PyModule::parse(&s.path, &s.text).ok()).collect()
}

fn runner(substrate: &Substrate) -> TestRunner {
    let python = substrate.config.python_env().expect("venv");
    let timeout = Duration::from_secs(substrate.config.timeout_s);
    TestRunner::new(&substrate.config.test_command, &substrate.config.env, timeout, &python, None)
}

/// Every Python file of `tree` that `site` changed parses.
fn check_parses(head: &Snapshot, tree: &Snapshot, site: &Site) -> Result<(), String> {
    for (path, data) in tree {
        if !(path.ends_with(".py") || path.ends_with(".pyi")) || head.get(path) == Some(data) {
            continue;
        }
        let text = snapshot::text_of(tree, path).ok_or_else(|| format!("{path}: not UTF-8"))?;
        if !mergeforge::python::parses(text, path) {
            return Err(format!("{}: {path} does not parse", site.key()));
        }
    }
    Ok(())
}

/// Every site of both kinds on a substrate, each applied to HEAD.
fn applied(substrate: &Substrate) -> Vec<(Site, Option<Snapshot>)> {
    let modules = modules(substrate);
    let workspace = Workspace { tree: &substrate.files, modules: &modules, coverage: None, probe: None };
    KINDS
        .iter()
        .flat_map(|kind| kind.sites(&workspace))
        .map(|site| {
            let tree = site.apply(&workspace, &substrate.files);
            (site, tree)
        })
        .collect()
}

#[test]
fn every_rename_site_applies_parses_and_a_few_keep_the_suite_passing() {
    let mut found = [0usize; KINDS.len()];
    let mut failures = Vec::new();
    let mut picked: Vec<(usize, Site, Snapshot)> = Vec::new();
    let substrates = embedded();
    for (index, substrate) in substrates.iter().enumerate() {
        for (site, tree) in applied(substrate) {
            found[KINDS.iter().position(|k| *k == site.kind).unwrap()] += 1;
            let Some(tree) = tree else {
                failures.push(format!("{}: {} does not apply to HEAD", substrate.name, site.key()));
                continue;
            };
            if tree == substrate.files {
                failures.push(format!("{}: {} changes nothing", substrate.name, site.key()));
            }
            if let Err(e) = check_parses(&substrate.files, &tree, &site) {
                failures.push(format!("{}: {e}", substrate.name));
            }
            // The pick: the first site of each kind on the first two substrates having one.
            let taken = picked.iter().filter(|(_, s, _)| s.kind == site.kind).count();
            let here = picked.iter().any(|(i, s, _)| *i == index && s.kind == site.kind);
            if taken < 2 && !here && failures.is_empty() {
                picked.push((index, site, tree));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for (kind, count) in KINDS.iter().zip(found) {
        assert!(count > 0, "no {kind} site on any embedded substrate");
    }
    for (index, site, tree) in &picked {
        let substrate = &substrates[*index];
        let outcome = runner(substrate).run_full(tree).expect("test run");
        assert!(outcome.passed, "{}: {} breaks the suite: {:?}", substrate.name, site.key(), outcome.failed_tests);
    }
}

/// A spread of at most `n` items, deterministic: every `len / n`-th.
fn sample<T>(items: Vec<T>, n: usize) -> Vec<T> {
    let step = items.len().div_ceil(n).max(1);
    items.into_iter().step_by(step).collect()
}

fn measure(substrate: &Substrate, per_kind: Option<usize>) {
    let runner = runner(substrate);
    let sites = applied(substrate);
    for kind in KINDS {
        let of_kind: Vec<_> = sites.iter().filter(|(s, _)| s.kind == kind).cloned().collect();
        let total = of_kind.len();
        let chosen = match per_kind {
            Some(n) => sample(of_kind, n),
            None => of_kind,
        };
        let mut passed = 0;
        for (site, tree) in &chosen {
            let ok = tree.as_ref().is_some_and(|t| runner.run_full(t).is_ok_and(|o| o.passed));
            passed += usize::from(ok);
            if !ok {
                println!("  FAIL {} ({})", site.key(), site.message());
            }
        }
        println!("{}: {kind}: {total} sites; {passed}/{} pass the suite", substrate.name, chosen.len());
    }
}

#[test]
#[ignore = "measurement: runs the suite on every site (minutes)"]
fn measure_rename_sites() {
    for substrate in embedded() {
        measure(&substrate, None);
    }
    let Some(dir) = std::env::var_os("MERGEFORGE_REAL_PROJECTS") else { return };
    let configs = root().join("substrates/real-projects");
    for entry in std::fs::read_dir(Path::new(&dir)).unwrap() {
        let project = entry.unwrap().path();
        let name = project.file_name().unwrap().to_string_lossy().into_owned();
        let stem = name.rsplit_once('-').map_or(name.as_str(), |(stem, _)| stem);
        let config = configs.join(format!("{stem}.toml"));
        if project.is_dir() {
            measure(&load(&project, Some(config.as_path()).filter(|c| c.is_file())), Some(10));
        }
    }
}
