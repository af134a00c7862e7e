//! The judgement's runs at generation: the validation's cached [`TestRunner`], the one
//! the ladder's rungs and the naive sides are judged with. Part (a) is the runner's
//! verdict on the graded tree (selected and confirmed, cached by content); part (b)'s
//! runs list the ids that pass, gold's run made once, when a tree first needs it.

use std::collections::BTreeSet;
use std::sync::Mutex;

use anyhow::{Context, Result};

use super::{Judged, Listed, Runs};
use crate::pytest::testrun::{Outcome, TestRunner};
use crate::snapshot::Snapshot;

/// The runs of one candidate's judgements: its gold tree and the substrate's runner.
pub(crate) struct RunnerRuns<'a> {
    runner: &'a TestRunner,
    gold: &'a Snapshot,
    gold_passing: Mutex<Option<BTreeSet<String>>>,
}

impl<'a> RunnerRuns<'a> {
    pub(crate) fn new(runner: &'a TestRunner, gold: &'a Snapshot) -> Self {
        RunnerRuns { runner, gold, gold_passing: Mutex::new(None) }
    }

    /// The gold tree the judgements are against.
    pub(crate) fn gold(&self) -> &'a Snapshot {
        self.gold
    }
}

impl Runs for RunnerRuns<'_> {
    type Graded = Outcome;

    fn graded(&self, graded: &Snapshot) -> Result<Outcome> {
        self.runner.run(graded)
    }

    fn passes(&self, run: &Outcome) -> bool {
        run.passed
    }

    fn listed(&self, own: &Snapshot) -> Result<Listed> {
        let (outcome, passing) = self.runner.run_listed(own).context("running the tree's own tests")?;
        Ok(Listed { passed: outcome.passed, failed: outcome.failed_tests, passing })
    }

    fn gold_passing(&self) -> Result<BTreeSet<String>> {
        let mut known = self.gold_passing.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(passing) = known.as_ref() {
            return Ok(passing.clone());
        }
        let (_, passing) = self.runner.run_listed(self.gold).context("listing the tests that pass on gold")?;
        *known = Some(passing.clone());
        Ok(passing)
    }
}

/// The outcome a record keeps for a judged tree: part (a)'s run when it solves the task
/// or fails there; otherwise a failing outcome whose failing tests are the reason's
/// placeholders ([`super::Unsolved::placeholders`]).
pub(crate) fn recorded(judged: Judged<Outcome>) -> Outcome {
    match judged.unsolved {
        Some(unsolved) if judged.graded.passed => {
            Outcome { passed: false, failed_tests: unsolved.placeholders(), ..judged.graded }
        }
        _ => judged.graded,
    }
}
