//! Witnesses of a task's interactions: gold with one edge's adaptation reverted (the
//! other side's feature written against the name or contract before the change) must
//! fail the judgement, or the edge asks nothing of the merge and is not counted.

use anyhow::Result;

use crate::forge::Candidate;
use crate::judge::{self, runner::RunnerRuns};
use crate::pytest::testrun::TestRunner;

/// Per interaction of `candidate`, in order: whether its reverted gold fails the
/// judgement (`Some(true)`: witnessed), or `None` when no reverted gold was made.
pub(crate) fn witnessed(candidate: &Candidate, runner: &TestRunner) -> Result<Vec<Option<bool>>> {
    let runs = RunnerRuns::new(runner, &candidate.gold);
    candidate
        .interactions
        .iter()
        .map(|interaction| match &interaction.reverted {
            None => Ok(None),
            Some(tree) => Ok(Some(judge::judge(tree, &candidate.gold, &runs)?.unsolved.is_some())),
        })
        .collect()
}
