//! The grader: the one judgement of *solves* ([`crate::judge`]), run so that the agent
//! cannot touch it, with the environment's runs ([`Runs`]). Every graded test run takes a
//! copy of the agent's tree, restores gold's [`steers_the_run`] files over it (test
//! modules, `conftest.py` files, pytest's configuration, anything that would shadow the
//! test runner: gold's copy, or none where gold has none), runs the task's test command
//! there in the sandbox, and requires every test id that passes on gold to pass — the
//! exit status alone proves nothing. Where the agent's test modules differ from gold's,
//! they run too (with gold's conftest and configuration) and must keep gold's tests; and
//! the tree may have no static finding gold has not. The verdict's summary names what
//! failed.
//!
//! Gold's passing ids are those the check at generation recorded in `solution.json`
//! ([`crate::env::check`]); for a task without a recorded check (the check itself), one
//! run of the test command on gold's tree (the merged tree at reset with the solution's
//! files), made the first time the task is graded and kept for every later episode
//! ([`GoldTests`]); a graded tree equal to gold's byte for byte then gets that run's
//! verdict instead of a second run of the same bytes. The agent's own edits to
//! test files stay in its tree for its own `run`s; they never reach a graded run.
//!
//! Known limit: the agent's source code still runs inside the graded process (it is what
//! is being tested), so code written to forge pytest's report lines could pass; the
//! cases in `tests/data/env/tamper/` are the ways this grader is known to stop.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{Context, Result};

use super::observation::{pytest_counts, TestCounts};
use crate::bundle::solution::GraderCheck;
use crate::bundle::Solution;
use crate::judge::{self, steers_the_run, Listed, Runs, Unsolved};
use crate::pytest::report;
use crate::sandbox::{self, Limits, Reads, RunOutput, RunRequest};
use crate::snapshot::Snapshot;

/// Output kept from a graded run: enough for pytest's summary of every test id.
const GRADED_OUTPUT_CAP: usize = 16 << 20;

/// Gold's side of the grader for one task.
#[derive(Debug)]
pub struct GoldTests {
    /// Gold's Python files and those that steer the run: what the judgement restores over
    /// a tree and compares its own tests and static findings with.
    pub(crate) tree: Snapshot,
    /// Test ids that pass on gold (empty when the test command is not pytest: then the
    /// exit status decides).
    pub(crate) passing: BTreeSet<String>,
    /// Gold's whole tree and what its run printed: a graded tree equal to it byte for
    /// byte gets that run's verdict without running again (`None` in unit tests).
    pub run: Option<(Snapshot, RunOutput)>,
}

/// How a task's test command runs: argv (with `python` resolved), environment, time.
#[derive(Debug, Clone)]
pub(crate) struct TestCommand {
    pub(crate) argv: Vec<String>,
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) timeout: Duration,
    /// What the run may read besides its sandbox: not the dataset, not an episode.
    pub(crate) reads: Reads,
    /// Graded trees already known to fail, which are not run again (`None` when serving).
    pub(crate) known_failures: Option<KnownFailures>,
}

/// Graded trees whose test run is already known to fail with this test command. At
/// generation the grader check asks the validation's test runner ([`crate::pytest::testrun::TestRunner::known_to_fail`]):
/// its cache holds the trees the ladder ran (the conflicted tree, each resolver's
/// resolution, judged by gold's tests), which are the trees the baseline agents submit.
/// A failure needs no test ids to grade (a failing run solves nothing, whatever passed);
/// a pass is never taken from it, since the grader also requires gold's passing ids.
#[derive(Clone)]
pub(crate) struct KnownFailures(pub Arc<dyn Fn(&Snapshot) -> bool + Send + Sync>);

impl std::fmt::Debug for KnownFailures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KnownFailures(..)")
    }
}

impl TestCommand {
    /// Whether the command is pytest (and reports test ids).
    fn is_pytest(&self) -> bool {
        report::is_pytest(&self.argv)
    }

    /// Runs in a fresh sandbox holding `tree`. pytest gets `-rfEp`: its summary lists
    /// every failing, erroring and passing test id.
    fn run(&self, tree: &Snapshot) -> Result<RunOutput> {
        let mut argv = self.argv.clone();
        if self.is_pytest() {
            argv.push("-rfEp".to_string());
        }
        let limits = Limits {
            output_cap_bytes: GRADED_OUTPUT_CAP,
            reads: self.reads.clone(),
            ..Limits::for_tests(self.timeout)
        };
        sandbox::run_in_fresh_tree(&RunRequest { tree, argv: &argv, env: &self.env, limits: &limits })
    }
}

/// Gold's tests of a task, computed by the first episode that needs them.
#[derive(Debug, Default)]
pub struct GoldCache(Mutex<Option<Arc<GoldTests>>>);

impl GoldCache {
    /// Gold's tests, running gold once if no episode has yet. `merged` is the tree at
    /// reset (the merge as git left it). A failed gold run is not kept: the next episode
    /// tries again.
    pub(crate) fn get(&self, merged: &Snapshot, solution: &Solution, command: &TestCommand) -> Result<Arc<GoldTests>> {
        let mut cached = self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(gold) = cached.as_ref() {
            return Ok(gold.clone());
        }
        let gold = Arc::new(match &solution.grader {
            Some(check) => recorded_gold_tests(merged, solution, check),
            None => gold_tests(merged, solution, command)?,
        });
        *cached = Some(gold.clone());
        Ok(gold)
    }

    /// Gold's tests, if an episode has needed them yet.
    pub fn cached(&self) -> Option<Arc<GoldTests>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).clone()
    }
}

/// Gold's tree with every solution file's gold text.
fn gold_tree(merged: &Snapshot, solution: &Solution) -> Snapshot {
    let mut tree = merged.clone();
    for file in &solution.files {
        tree.insert(file.path.clone(), Arc::from(file.gold.as_bytes()));
    }
    tree
}

/// What of gold's tree the judgement needs: its Python files and those that steer the
/// run.
fn judged_files(tree: &Snapshot) -> Snapshot {
    let needed = |path: &str| path.ends_with(".py") || steers_the_run(path);
    tree.iter().filter(|(path, _)| needed(path)).map(|(p, d)| (p.clone(), d.clone())).collect()
}

/// Gold's tests as the check at generation recorded them: no run of gold needed.
fn recorded_gold_tests(merged: &Snapshot, solution: &Solution, check: &GraderCheck) -> GoldTests {
    let tree = gold_tree(merged, solution);
    let passing = check.gold_passing.iter().cloned().collect();
    GoldTests { tree: judged_files(&tree), passing, run: None }
}

/// Gold's tree (the merged tree with every solution file's gold text), its steering
/// files, and the ids that pass on it.
fn gold_tests(merged: &Snapshot, solution: &Solution, command: &TestCommand) -> Result<GoldTests> {
    let tree = gold_tree(merged, solution);
    let output = command.run(&tree).context("running the tests on gold")?;
    if output.exit_code != Some(0) {
        let failing = report::failing_test_ids(&output.output);
        let named = match failing.len() {
            0 => String::new(),
            n => format!("; failing: {}{}", failing[..n.min(3)].join(", "), if n > 3 { ", …" } else { "" }),
        };
        anyhow::bail!(
            "the tests fail on gold in this environment ({}{named}): the task cannot be graded",
            crate::pytest::last_line(&output.output)
        );
    }
    let passing = if command.is_pytest() { report::passed_test_ids(&output.output) } else { BTreeSet::new() };
    Ok(GoldTests { tree: judged_files(&tree), passing, run: Some((tree, output)) })
}

/// The grader's verdict on one tree.
#[derive(Debug, Clone)]
pub(crate) struct Verdict {
    /// The command exited 0 and every test that passes on gold passed.
    pub(crate) passed: bool,
    pub(crate) counts: Option<TestCounts>,
    /// One line for the agent: pass or fail, counts, failing ids.
    pub(crate) summary: String,
    /// Test ids the run reported as passed, and as failed or erroring (at most
    /// [`report::MAX_RECORDED_FAILURES`]); empty when the command is not pytest. Ids of
    /// this run only: never gold's list of required tests, nor the run's output.
    pub(crate) passed_ids: Vec<String>,
    pub(crate) failed_ids: Vec<String>,
}

impl Verdict {
    /// A run known to fail ([`KnownFailures`]), not made again: no counts, no ids.
    fn known_failure() -> Verdict {
        Verdict {
            passed: false,
            counts: None,
            summary: "tests fail (this tree's run is known)".to_string(),
            passed_ids: Vec::new(),
            failed_ids: Vec::new(),
        }
    }
}

/// Grades `tree` (the agent's, as scanned) against `gold` with the one judgement
/// ([`judge::judge`]): the verdict passes when the tree solves the task; otherwise its
/// summary says which part failed and what it names.
pub(crate) fn grade(tree: &Snapshot, gold: &GoldTests, command: &TestCommand) -> Result<Verdict> {
    let judged = judge::judge(tree, &gold.tree, &GraderRuns { gold, command })?;
    let mut verdict = judged.graded;
    match judged.unsolved {
        None | Some(Unsolved::GoldTests) => {}
        Some(unsolved) => {
            verdict.passed = false;
            verdict.summary = format!("{}; {}", verdict.summary, unsolved.describe());
        }
    }
    Ok(verdict)
}

/// The judgement's runs in the environment: the task's test command in a fresh sandbox.
struct GraderRuns<'a> {
    gold: &'a GoldTests,
    command: &'a TestCommand,
}

impl Runs for GraderRuns<'_> {
    type Graded = Verdict;

    /// Gold's tests over the tree: a tree known to fail is not run again, one equal to
    /// gold's gets gold's run; every test id that passes on gold must pass.
    fn graded(&self, graded: &Snapshot) -> Result<Verdict> {
        let (gold, command) = (self.gold, self.command);
        if command.known_failures.as_ref().is_some_and(|known| (known.0)(graded)) {
            return Ok(Verdict::known_failure());
        }
        let output = match &gold.run {
            Some((gold_tree, gold_output)) if gold_tree == graded => gold_output.clone(),
            _ => command.run(graded).context("running the graded tests")?,
        };
        let passed_ids = report::passed_test_ids(&output.output);
        let missing: Vec<&String> = gold.passing.iter().filter(|id| !passed_ids.contains(*id)).collect();
        let passed = output.exit_code == Some(0) && missing.is_empty();
        let counts = pytest_counts(&output.output);
        let failed_ids = report::failing_test_ids(&output.output);
        Ok(Verdict {
            passed,
            counts,
            summary: summary(passed, counts, &output, &failed_ids, &missing),
            passed_ids: passed_ids.into_iter().collect(),
            failed_ids,
        })
    }

    fn passes(&self, run: &Verdict) -> bool {
        run.passed
    }

    fn listed(&self, own: &Snapshot) -> Result<Listed> {
        let output = self.command.run(own).context("running the tree's own tests")?;
        let outcome = crate::pytest::outcome::outcome_of(&output);
        Ok(Listed {
            passed: outcome.passed,
            failed: outcome.failed_tests,
            passing: report::passed_test_ids(&output.output),
        })
    }

    fn gold_passing(&self) -> Result<BTreeSet<String>> {
        Ok(self.gold.passing.clone())
    }
}

fn summary(
    passed: bool,
    counts: Option<TestCounts>,
    output: &RunOutput,
    failing: &[String],
    missing: &[&String],
) -> String {
    let verdict = if passed {
        "tests pass"
    } else if output.timed_out {
        "tests timed out"
    } else {
        "tests fail"
    };
    let mut line = match counts {
        Some(c) => format!("{verdict}: {} passed, {} failed", c.passed, c.failed),
        None => verdict.to_string(),
    };
    if !failing.is_empty() {
        let shown: Vec<&str> = failing.iter().take(10).map(String::as_str).collect();
        line.push_str(&format!(" ({}{})", shown.join(", "), if failing.len() > 10 { ", ..." } else { "" }));
    }
    // Counted, not named: which tests gold passes is the reference's, not the agent's.
    let unreported = missing.iter().filter(|id| !failing.contains(**id)).count();
    if !passed && unreported > 0 {
        line.push_str(&format!("; {unreported} required test(s) did not pass (skipped, deselected or not run)"));
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(paths: &[(&str, &str)]) -> Snapshot {
        paths.iter().map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes()))).collect()
    }

    #[test]
    fn a_tree_known_to_fail_is_graded_without_a_run() {
        // The command cannot run at all: grading a tree that is not known to fail errors.
        let files = tree(&[("tests/test_a.py", "gold")]);
        let gold = GoldTests { tree: files, passing: BTreeSet::new(), run: None };
        let agent = tree(&[("a.py", "x = 1")]);
        let known = KnownFailures(Arc::new(|graded: &Snapshot| graded.contains_key("tests/test_a.py")));
        let mut command = TestCommand {
            argv: vec!["/nonexistent/mergeforge-test-python".to_string()],
            env: BTreeMap::new(),
            timeout: Duration::from_secs(5),
            reads: Reads::default(),
            known_failures: Some(known),
        };
        let verdict = grade(&agent, &gold, &command).expect("no run was needed");
        assert!(!verdict.passed && verdict.counts.is_none() && verdict.failed_ids.is_empty(), "{verdict:?}");

        // Known only by the graded tree: gold's tests restored over the agent's.
        command.known_failures = Some(KnownFailures(Arc::new(|graded: &Snapshot| graded.contains_key("b.py"))));
        assert!(grade(&agent, &gold, &command).is_err(), "a tree not known to fail runs");
    }
}
