//! The one judgement of *solves*: whether a resolved tree solves its task, the same
//! code for the ladder, the naive sides, the grader checks, `eval` and the environment's
//! reward.
//!
//! A tree solves a task when
//! - (a) gold's test files, restored over it, pass ([`graded_tree`]: gold's copy of every
//!   file that [`steers_the_run`]; tamper-proof: the tree's own tests never decide this
//!   part);
//! - (b) its own test modules, run with gold's `conftest.py` files and test
//!   configuration, pass, collect every test gold's do, and keep each of gold's test
//!   functions' checks ([`own_tests`]; skipped when its test modules equal gold's);
//! - (c) it has no static finding ([`findings`]) that gold has not.
//!
//! The parts are judged in that order and the first that fails is the verdict
//! ([`Unsolved`]). Running the tests is the caller's ([`Runs`]): at generation the
//! validation's cached test runner ([`runner`]), in the environment the grader's
//! sandboxed command ([`crate::env::grader`]).

pub(crate) mod findings;
pub(crate) mod own_tests;
pub(crate) mod runner;

use std::collections::BTreeSet;

use anyhow::Result;

use crate::snapshot::{self, Snapshot};
use findings::Finding;

/// What a file that steers the test run is, by name (any folder): pytest's
/// configuration, or a module that `python -m pytest` would import instead of pytest.
const STEERING_NAMES: &[&str] = &[
    "conftest.py",
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "setup.cfg",
    "tox.ini",
    "pytest.py",
    "py.py",
    "sitecustomize.py",
    "usercustomize.py",
];

/// Folders that would shadow the test runner's own packages.
const STEERING_FOLDERS: &[&str] = &["_pytest", "pluggy"];

/// Whether `path` steers the run by its name alone: a `conftest.py`, pytest's
/// configuration, or a shadow of the runner. Every run the judgement makes takes gold's
/// copy of these, the tree's own test run included.
fn steers_by_name(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    STEERING_NAMES.contains(&name) || parts.first().is_some_and(|top| STEERING_FOLDERS.contains(top))
}

/// Whether `path` decides how the tests run rather than what they test: a test file
/// ([`snapshot::is_test_file`]: test modules, their folders, `conftest.py`), pytest's
/// configuration, or a shadow of the runner. Graded runs take gold's copy of these.
pub(crate) fn steers_the_run(path: &str) -> bool {
    snapshot::is_test_file(path) || steers_by_name(path)
}

/// Whether `path` is one of the tree's own test files: a test file that does not steer
/// the run by its name (test modules, their helpers and data; not `conftest.py`).
pub(crate) fn is_own_test_file(path: &str) -> bool {
    snapshot::is_test_file(path) && !steers_by_name(path)
}

/// The files of `tree` that steer the run ([`steers_the_run`]).
pub(crate) fn steering_files(tree: &Snapshot) -> Snapshot {
    tree.iter().filter(|(path, _)| steers_the_run(path)).map(|(p, d)| (p.clone(), d.clone())).collect()
}

/// `tree` as part (a) runs it: every file that steers the run replaced by gold's
/// (`gold_steering`, [`steering_files`] of gold), removed where gold has none.
pub(crate) fn graded_tree(tree: &Snapshot, gold_steering: &Snapshot) -> Snapshot {
    let mut out: Snapshot =
        tree.iter().filter(|(path, _)| !steers_the_run(path)).map(|(p, d)| (p.clone(), d.clone())).collect();
    out.extend(gold_steering.iter().map(|(p, d)| (p.clone(), d.clone())));
    out
}

/// A run of a tree's own tests (part (b)): whether the command passed, the ids that
/// failed (or a placeholder saying why it failed without naming one) and the ids that
/// passed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listed {
    pub(crate) passed: bool,
    pub(crate) failed: Vec<String>,
    pub(crate) passing: BTreeSet<String>,
}

/// How the judgement runs the task's test command on a tree.
pub(crate) trait Runs {
    /// A run of gold's tests over a tree (part (a)), as this side keeps it.
    type Graded;
    /// Runs the test command on `graded` ([`graded_tree`]).
    fn graded(&self, graded: &Snapshot) -> Result<Self::Graded>;
    /// Whether that run passes: the command exits 0 (and, where this side knows them,
    /// every test that passes on gold passed).
    fn passes(&self, run: &Self::Graded) -> bool;
    /// Runs the test command on `own` (a tree's own test files with gold's steering
    /// ones), listing the ids that passed.
    fn listed(&self, own: &Snapshot) -> Result<Listed>;
    /// The test ids that pass on gold (empty when the command does not name tests).
    fn gold_passing(&self) -> Result<BTreeSet<String>>;
}

/// Why a tree does not solve its task: the first part of the judgement it fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unsolved {
    /// (a) Gold's tests restored over the tree do not pass.
    GoldTests,
    /// (b) The tree's own tests fail (the failing ids).
    OwnTests(Vec<String>),
    /// (b) Gold's tests the tree's own do not keep: test ids that pass on gold and not
    /// among the tree's own, or gold's test functions whose version in the tree has
    /// fewer checks (`path::Class::test`).
    NotKept(Vec<String>),
    /// (c) Static findings the tree has and gold has not.
    Findings(Vec<Finding>),
}

/// At most this many reasons go into a record or an observation.
const MAX_REASONS: usize = 200;

impl Unsolved {
    /// Placeholder test ids for a record's list of failing tests, so that the reason is
    /// visible where a rung's failures are listed: `<own tests ID>`, `<not kept ID>`,
    /// `<finding RULE PATH NAME>`. Empty for part (a), whose run names its own failures.
    pub(crate) fn placeholders(&self) -> Vec<String> {
        let bare = |id: &String| id.strip_prefix('<').and_then(|i| i.strip_suffix('>')).unwrap_or(id).to_string();
        let mut ids: Vec<String> = match self {
            Unsolved::GoldTests => Vec::new(),
            Unsolved::OwnTests(ids) => ids.iter().map(|id| format!("<own tests {}>", bare(id))).collect(),
            Unsolved::NotKept(ids) => ids.iter().map(|id| format!("<not kept {id}>")).collect(),
            Unsolved::Findings(found) => {
                found.iter().map(|f| format!("<finding {} {} {}>", f.rule, f.path, f.name)).collect()
            }
        };
        ids.sort();
        ids.dedup();
        ids.truncate(MAX_REASONS);
        ids
    }

    /// One line for the agent: which part failed and what it names.
    pub(crate) fn describe(&self) -> String {
        let list = |items: Vec<String>| {
            let shown: Vec<&str> = items.iter().take(10).map(String::as_str).collect();
            format!("{}{}", shown.join(", "), if items.len() > 10 { ", ..." } else { "" })
        };
        match self {
            Unsolved::GoldTests => "not solved: the tests fail".to_string(),
            Unsolved::OwnTests(ids) => format!(
                "not solved: the repository's own test files (run with the reference's conftest.py and test \
                 configuration) fail: {}",
                list(ids.clone())
            ),
            Unsolved::NotKept(ids) => format!(
                "not solved: the resolution of the test files does not keep these tests (missing, not passing, or \
                 with fewer checks): {}",
                list(ids.clone())
            ),
            Unsolved::Findings(found) => format!(
                "not solved: static findings the reference does not have: {}",
                list(found.iter().map(|f| format!("{}:{}: {} {}", f.path, f.line, f.rule, f.message)).collect())
            ),
        }
    }
}

/// The judgement of one tree: the run of gold's tests over it (part (a)), and why it
/// does not solve its task (`None`: it solves it).
#[derive(Debug, Clone)]
pub(crate) struct Judged<G> {
    pub(crate) graded: G,
    pub(crate) unsolved: Option<Unsolved>,
}

/// Judges `tree` against `gold` (gold's whole tree, or at least its Python files and
/// every file that steers the run), running tests through `runs`.
pub(crate) fn judge<R: Runs>(tree: &Snapshot, gold: &Snapshot, runs: &R) -> Result<Judged<R::Graded>> {
    let steering = steering_files(gold);
    let graded = runs.graded(&graded_tree(tree, &steering))?;
    if !runs.passes(&graded) {
        return Ok(Judged { graded, unsolved: Some(Unsolved::GoldTests) });
    }
    if let Some(unsolved) = own_tests::judge(tree, gold, &steering, runs)? {
        return Ok(Judged { graded, unsolved: Some(unsolved) });
    }
    let found = findings::findings(tree, gold)?;
    let unsolved = (!found.is_empty()).then_some(Unsolved::Findings(found));
    Ok(Judged { graded, unsolved })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn tree(paths: &[(&str, &str)]) -> Snapshot {
        paths.iter().map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes()))).collect()
    }

    #[test]
    fn steering_files_are_tests_configuration_and_runner_shadows() {
        for path in [
            "tests/test_a.py",
            "conftest.py",
            "pkg/conftest.py",
            "pytest.ini",
            "sub/tox.ini",
            "pyproject.toml",
            "setup.cfg",
            "pytest.py",
            "_pytest/main.py",
            "sitecustomize.py",
        ] {
            assert!(steers_the_run(path), "{path}");
        }
        for path in ["calculator.py", "pkg/core.py", "README.md", "setup.py", "pkg/_pytest_helpers.py"] {
            assert!(!steers_the_run(path), "{path}");
        }
    }

    #[test]
    fn own_test_files_are_test_files_that_do_not_steer_by_name() {
        for path in ["tests/test_a.py", "tests/helpers.py", "tests/data/x.json", "test_top.py", "pkg/io_test.py"] {
            assert!(is_own_test_file(path), "{path}");
        }
        for path in ["conftest.py", "tests/conftest.py", "tests/pytest.ini", "tests/sitecustomize.py", "calc.py"] {
            assert!(!is_own_test_file(path), "{path}");
        }
    }

    #[test]
    fn the_graded_tree_takes_golds_steering_files_only() {
        let agent = tree(&[
            ("calc.py", "agent"),
            ("tests/test_calc.py", "def test_ok(): pass"),
            ("conftest.py", "import sys; sys.exit(0)"),
            ("pytest.ini", "[pytest]\naddopts = -k nothing"),
        ]);
        let gold = tree(&[("calc.py", "gold"), ("tests/test_calc.py", "gold test")]);
        let graded = graded_tree(&agent, &steering_files(&gold));
        assert_eq!(graded, tree(&[("calc.py", "agent"), ("tests/test_calc.py", "gold test")]));
    }

    #[test]
    fn placeholders_name_the_part_and_what_failed() {
        let own = Unsolved::OwnTests(vec!["tests/test_a.py::test_x".into(), "<exit 2>".into()]);
        assert_eq!(own.placeholders(), ["<own tests exit 2>", "<own tests tests/test_a.py::test_x>"]);
        let kept = Unsolved::NotKept(vec!["tests/test_a.py::test_y".into()]);
        assert_eq!(kept.placeholders(), ["<not kept tests/test_a.py::test_y>"]);
        let finding = Finding {
            path: "calc.py".into(),
            rule: "F811".into(),
            name: "add".into(),
            line: 3,
            message: "redefinition of unused `add`".into(),
        };
        assert_eq!(Unsolved::Findings(vec![finding]).placeholders(), ["<finding F811 calc.py add>"]);
        assert!(Unsolved::GoldTests.placeholders().is_empty());
    }

    /// A snapshot of every file under `dir`.
    fn read_tree(dir: &std::path::Path) -> Snapshot {
        let mut out = Snapshot::new();
        let mut stack = vec![dir.to_path_buf()];
        while let Some(folder) = stack.pop() {
            for entry in std::fs::read_dir(&folder).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let relative = path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
                    out.insert(relative, Arc::from(std::fs::read(&path).unwrap()));
                }
            }
        }
        out
    }

    /// The cases of `tests/data/judge/own_tests/<case>/`: `gold/` (gold's tree), `tree/`
    /// (the files where the judged tree differs from gold) and `expected` (`solved`, or
    /// the placeholder ids the record lists, one a line), judged with the generation's
    /// runner on real pytest runs.
    #[test]
    fn own_tests_cases_are_judged_as_expected() {
        use rayon::prelude::*;

        use crate::pytest::testrun::TestRunner;
        use crate::pytest::venv::{ensure_venv, user_cache_dir};

        let python = ensure_venv(&user_cache_dir(), &[]).unwrap();
        let command: Vec<String> =
            ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"].iter().map(|s| s.to_string()).collect();
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/judge/own_tests");
        let mut cases: Vec<std::path::PathBuf> =
            std::fs::read_dir(&data).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
        cases.sort();
        assert!(cases.len() >= 8, "{} cases", cases.len());
        let failures: Vec<String> = cases
            .par_iter()
            .filter_map(|case| {
                let name = case.file_name().unwrap().to_string_lossy().into_owned();
                let gold = read_tree(&case.join("gold"));
                let mut judged = gold.clone();
                judged.extend(read_tree(&case.join("tree")));
                let expected = std::fs::read_to_string(case.join("expected")).unwrap();
                let runner =
                    TestRunner::new(&command, &Default::default(), std::time::Duration::from_secs(60), &python, None);
                let runs = runner::RunnerRuns::new(&runner, &gold);
                let outcome = runner::recorded(judge(&judged, &gold, &runs).unwrap());
                let got = match outcome.passed {
                    true => "solved\n".to_string(),
                    false => outcome.failed_tests.iter().map(|id| format!("{id}\n")).collect(),
                };
                (got != expected).then(|| format!("{name}: expected\n{expected}got\n{got}"))
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }
}
