//! The `move` intent on real code: every site it finds on every embedded substrate
//! applies and leaves every Python file parsing, and a few sites (a deterministic pick)
//! leave the substrate's own suite passing under the real runner.
//!
//! `measure_move_sites` (ignored) counts the sites per substrate and runs the suite on
//! every one; with `MERGEFORGE_REAL_PROJECTS=<folder of unpacked sdists>` it does the same
//! on the real projects of `substrates/real-projects/` found there, on a sample of
//! `MOVE_SAMPLE` sites (20), for the projects `MOVE_PROJECTS` names (all; naming some
//! skips the embedded substrates). `dump_move_case` (ignored) writes the expected tree of
//! the case folder `MOVE_CASE` names, to be read before it is committed.

use std::path::Path;
use std::time::Duration;

use mergeforge::intent::{Kind, Site, Workspace};
use mergeforge::pytest::testrun::TestRunner;
use mergeforge::python::PyModule;
use mergeforge::snapshot::{self, Snapshot};
use mergeforge::substrate::{self, Substrate, SubstrateSpec};

use crate::common::root;

/// Sites whose suite runs in CI, at most.
const PICKED: usize = 4;

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
        if !path.ends_with(".py") || head.get(path) == Some(data) {
            continue;
        }
        let text = snapshot::text_of(tree, path).ok_or_else(|| format!("{path}: not UTF-8"))?;
        if !mergeforge::python::parses(text, path) {
            return Err(format!("{}: {path} does not parse", site.key()));
        }
    }
    Ok(())
}

/// Every move site of a substrate, each applied to HEAD.
fn applied(substrate: &Substrate) -> Vec<(Site, Option<Snapshot>)> {
    let modules = modules(substrate);
    let workspace = Workspace { tree: &substrate.files, modules: &modules, coverage: None, probe: None };
    Kind::Move
        .sites(&workspace)
        .into_iter()
        .map(|site| {
            let tree = site.apply(&workspace, &substrate.files);
            (site, tree)
        })
        .collect()
}

#[test]
fn every_move_site_applies_parses_and_a_few_keep_the_suite_passing() {
    let mut found = 0;
    let mut failures = Vec::new();
    let mut picked: Vec<(usize, Site, Snapshot)> = Vec::new();
    let substrates = embedded();
    for (index, substrate) in substrates.iter().enumerate() {
        for (site, tree) in applied(substrate) {
            found += 1;
            let Some(tree) = tree else {
                failures.push(format!("{}: {} does not apply to HEAD", substrate.name, site.key()));
                continue;
            };
            if let Err(e) = check_parses(&substrate.files, &tree, &site) {
                failures.push(format!("{}: {e}", substrate.name));
            }
            // The pick: the first site of each substrate having one, up to PICKED.
            if picked.len() < PICKED && !picked.iter().any(|(i, _, _)| *i == index) {
                picked.push((index, site, tree));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(found > 0, "no move site on any embedded substrate");
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

fn measure(substrate: &Substrate, at_most: Option<usize>) {
    let runner = runner(substrate);
    let sites = applied(substrate);
    let total = sites.len();
    let applying = sites.iter().filter(|(_, t)| t.is_some()).count();
    for (site, _) in sites.iter().filter(|(_, t)| t.is_none()) {
        println!("  DOES NOT APPLY {}", site.key());
    }
    let chosen = match at_most {
        Some(n) => sample(sites, n),
        None => sites,
    };
    let mut passed = 0;
    for (site, tree) in &chosen {
        let outcome = tree.as_ref().map(|t| runner.run_full(t));
        let ok = matches!(&outcome, Some(Ok(o)) if o.passed);
        passed += usize::from(ok);
        if !ok {
            let why = match &outcome {
                None => "does not apply".to_string(),
                Some(Ok(o)) => format!("{:?}", o.failed_tests),
                Some(Err(e)) => format!("{e:#}"),
            };
            println!("  FAIL {}: {why}", site.key());
        }
    }
    println!("{}: move: {total} sites ({applying} apply); {passed}/{} pass the suite", substrate.name, chosen.len());
}

#[test]
#[ignore = "measurement: runs the suite on move sites (minutes)"]
fn measure_move_sites() {
    if std::env::var_os("MOVE_PROJECTS").is_none() {
        for substrate in embedded() {
            measure(&substrate, None);
        }
    }
    let Some(dir) = std::env::var_os("MERGEFORGE_REAL_PROJECTS") else { return };
    let dir = Path::new(&dir);
    let only = std::env::var("MOVE_PROJECTS").unwrap_or_else(|_| "isodate,more-itertools,boltons".into());
    for config in only.split(',') {
        let config_file = root().join(format!("substrates/real-projects/{config}.toml"));
        let Some(folder) = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.is_dir() && p.file_name().unwrap().to_string_lossy().starts_with(&format!("{config}-")))
        else {
            continue;
        };
        let sample = std::env::var("MOVE_SAMPLE").ok().and_then(|n| n.parse().ok()).unwrap_or(20);
        measure(&load(&folder, Some(config_file.as_path()).filter(|c| c.is_file())), Some(sample));
    }
}

#[test]
#[ignore = "development: writes a move case's expected tree"]
fn dump_move_case() {
    let Some(dir) = std::env::var_os("MOVE_CASE") else { return };
    let dir = Path::new(&dir);
    let case: toml::Value = toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap()).unwrap();
    let input = crate::common::snapshot_of(&dir.join("input"));
    let modules: Vec<PyModule> = input
        .keys()
        .filter(|p| p.ends_with(".py") && !snapshot::is_test_file(p))
        .map(|p| PyModule::parse(p, snapshot::text_of(&input, p).unwrap()).unwrap())
        .collect();
    let workspace = Workspace { tree: &input, modules: &modules, coverage: None, probe: None };
    let sites = Kind::Move.sites(&workspace);
    for site in &sites {
        println!("site {} {:?}", site.key(), site.lines);
    }
    let site = sites.iter().find(|s| {
        s.path == case["path"].as_str().unwrap()
            && s.symbol == case["symbol"].as_str().unwrap()
            && s.target.as_deref() == case.get("target").and_then(|t| t.as_str())
    });
    let Some(site) = site else {
        println!("no such site");
        return;
    };
    println!("message: {}", site.message());
    let Some(tree) = site.apply(&workspace, &input) else {
        println!("does not apply");
        return;
    };
    let out = dir.join("expected");
    let _ = std::fs::remove_dir_all(&out);
    snapshot::materialise(&tree, &out).unwrap();
}
