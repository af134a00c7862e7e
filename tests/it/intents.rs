//! Intents, data-driven: each folder of `tests/data/intents/` holds `case.toml`, an
//! `input/` tree and (unless the case is refused) an `expected/` tree. The case names an
//! intent kind and a site (path, symbol, and optionally its target); the site must be
//! among the kind's sites on the input tree, and applying it to the input must give the
//! expected tree byte for byte. A refused case (`refused = true`) has no such site, or
//! applying it gives nothing. A feature case may list the test ids taken out with the
//! unit (`tests`), and may carry a coverage map of the input (`coverage.json`). Kinds
//! that find their tests by a run (`branch`) get a real test runner over the input tree
//! (the default test command), so its failing tests decide the site.
//!
//! `MERGEFORGE_BLESS=1` writes each applied tree over its case's `expected/` instead of
//! comparing: for updating cases, whose new expected trees are then read in `git diff`.

use std::path::{Path, PathBuf};

use std::time::Duration;

use mergeforge::intent::{Kind, Probe, Workspace};
use mergeforge::pytest::testrun::TestRunner;
use mergeforge::python::PyModule;
use mergeforge::snapshot::{self, Snapshot};
use mergeforge::substrate::SubstrateConfig;

use crate::common::{root, snapshot_of};

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    kind: String,
    path: String,
    symbol: String,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    tests: Option<Vec<String>>,
    #[serde(default)]
    refused: bool,
}

fn cases() -> Vec<PathBuf> {
    let dir = root().join("tests/data/intents");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    out
}

/// The tree's Python sources (not its test files), parsed, sorted by path.
fn modules_of(tree: &Snapshot) -> Vec<PyModule> {
    tree.keys()
        .filter(|path| path.ends_with(".py") && !snapshot::is_test_file(path))
        .map(|path| PyModule::parse(path, snapshot::text_of(tree, path).unwrap()).unwrap())
        .collect()
}

/// A test runner with the default test command (`python -m pytest`) in the tool's venv.
fn runner() -> TestRunner {
    let config = SubstrateConfig::default();
    let python = config.python_env().expect("venv with pytest");
    TestRunner::new(&config.test_command, &config.env, Duration::from_secs(config.timeout_s), &python, None)
}

fn check(dir: &Path) -> Result<(), String> {
    let case: Case = toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).map_err(|e| e.to_string())?)
        .map_err(|e| format!("case.toml: {e}"))?;
    let kind = Kind::parse(&case.kind).ok_or_else(|| format!("unknown intent kind `{}`", case.kind))?;
    let input = snapshot_of(&dir.join("input"));
    let modules = modules_of(&input);
    let coverage = std::fs::read(dir.join("coverage.json"))
        .ok()
        .map(|bytes| serde_json::from_slice(&bytes).map_err(|e| format!("coverage.json: {e}")))
        .transpose()?;
    // Kinds that find their tests by a run get a real runner over the input tree.
    let runner = matches!(kind, Kind::Branch | Kind::AddModule | Kind::DictEntry).then(runner);
    let probe = runner.as_ref().map(|r| r as &dyn Probe);
    let workspace = Workspace { tree: &input, modules: &modules, coverage: coverage.as_ref(), probe };
    let sites = kind.sites(&workspace);
    let site = sites
        .iter()
        .find(|s| s.path == case.path && s.symbol == case.symbol && case.target.as_ref().is_none_or(|t| names(s, t)));
    let applied = site.and_then(|s| s.apply(&workspace, &input));
    if case.refused {
        return match applied {
            None => Ok(()),
            Some(_) => Err(format!("expected no {kind} at {}:{}, found {site:?}", case.path, case.symbol)),
        };
    }
    let listed: Vec<String> = sites.iter().map(|s| format!("{}:{} -> {:?}", s.path, s.symbol, s.target)).collect();
    let site = site.ok_or_else(|| format!("no {kind} site {}:{}; sites: {listed:#?}", case.path, case.symbol))?;
    if let Some(tests) = &case.tests {
        if &site.tests != tests {
            return Err(format!("tests taken out: {:?}, expected {tests:?}", site.tests));
        }
    }
    if site.message().is_empty() {
        return Err("empty commit message".into());
    }
    let applied = applied.ok_or_else(|| format!("{kind} at {}:{} did not apply", case.path, case.symbol))?;
    if std::env::var_os("MERGEFORGE_BLESS").is_some() {
        return bless(&dir.join("expected"), &applied);
    }
    let expected = snapshot_of(&dir.join("expected"));
    compare(&applied, &expected)
}

/// Whether a site's target is `target`, or starts with it and a `|` (what a kind adds
/// after a name to find its site again, such as extract-helper's hashes).
fn names(site: &mergeforge::intent::Site, target: &str) -> bool {
    site.target
        .as_deref()
        .is_some_and(|t| t == target || t.strip_prefix(target).is_some_and(|rest| rest.starts_with('|')))
}

/// Replaces the folder `expected` with `tree`.
fn bless(expected: &Path, tree: &Snapshot) -> Result<(), String> {
    let _ = std::fs::remove_dir_all(expected);
    for (path, bytes) in tree.iter() {
        let file = expected.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&file, &bytes[..]).map_err(|e| format!("{}: {e}", file.display()))?;
    }
    Ok(())
}

fn compare(got: &Snapshot, expected: &Snapshot) -> Result<(), String> {
    let paths: std::collections::BTreeSet<&String> = got.keys().chain(expected.keys()).collect();
    for path in paths {
        let text = |tree: &Snapshot| tree.get(path).map(|d| String::from_utf8_lossy(d).into_owned());
        let (g, e) = (text(got), text(expected));
        if g != e {
            return Err(format!(
                "{path} differs\n--- got ---\n{}\n--- expected ---\n{}",
                g.unwrap_or_else(|| "(absent)".into()),
                e.unwrap_or_else(|| "(absent)".into())
            ));
        }
    }
    Ok(())
}

#[test]
fn every_intent_case_gives_its_expected_tree() {
    let cases = cases();
    assert!(!cases.is_empty(), "no case under tests/data/intents");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|dir| check(dir).err().map(|e| format!("{}: {e}", dir.file_name().unwrap().to_string_lossy())))
        .collect();
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}

#[test]
fn every_kind_has_a_case() {
    let names: Vec<String> = cases()
        .iter()
        .map(|dir| {
            let text = std::fs::read_to_string(dir.join("case.toml")).unwrap();
            toml::from_str::<Case>(&text).unwrap().kind
        })
        .collect();
    for kind in Kind::ALL {
        assert!(names.iter().any(|n| n == kind.name()), "no case for intent kind {kind}");
    }
}
