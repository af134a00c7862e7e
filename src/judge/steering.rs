//! Which files steer a test run rather than being tested (test modules, `conftest.py`,
//! pytest's configuration, shadows of the runner), and the tree part (a) runs: gold's
//! copy of each of them over the tree.

use crate::snapshot::{self, Snapshot};

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
