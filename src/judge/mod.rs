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
mod steering;
mod verdict;

use anyhow::Result;

use crate::snapshot::Snapshot;
pub(crate) use steering::{graded_tree, steering_files, steers_the_run};
pub(crate) use verdict::{Listed, Runs, Unsolved};

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

    use super::findings::Finding;
    use super::steering::is_own_test_file;
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
