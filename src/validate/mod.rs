//! Proves a candidate is a task by running its tests on every tree that matters:
//! the conflicted merge must fail, gold must pass, ours and theirs must behave as the
//! family requires, and every baseline resolver's result is tested and recorded.
//!
//! This stage owns the [`Validation`] record and the reasons a candidate is rejected.
//! It runs tests only through the sandbox's [`TestRunner`]; it does not level tasks.

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::forge::{Candidate, SideRule};
use crate::resolve;
pub use crate::sandbox::testrun::{Outcome, TestRunner};
use crate::snapshot::Snapshot;

/// Every outcome a task records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Validation {
    pub conflicted: Outcome,
    pub ours: Outcome,
    pub theirs: Outcome,
    pub gold: Outcome,
    pub baselines: Baselines,
}

/// Outcomes of the baseline resolvers applied to the conflicted tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Baselines {
    pub ours: Outcome,
    pub theirs: Outcome,
    pub union: UnionOutcome,
}

/// The union resolver passes if either order passes; both orders are recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnionOutcome {
    pub passed: bool,
    pub ours_first: Outcome,
    pub theirs_first: Outcome,
}

/// Why a candidate is not a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rejection {
    /// ours and theirs merge without conflict.
    CleanMerge,
    /// The conflict is not a text conflict (modify/delete, binary).
    UnsupportedConflict,
    /// The tests pass on the conflicted tree.
    ConflictedPasses,
    /// A side the family requires to fail passes.
    SidePasses,
    /// divergent-edit: both sides pass.
    BothSidesPass,
    /// divergent-edit: both sides fail.
    BothSidesFail,
    /// The gold merge fails its tests.
    GoldFails,
}

impl Rejection {
    pub fn name(self) -> &'static str {
        match self {
            Rejection::CleanMerge => "clean-merge",
            Rejection::UnsupportedConflict => "unsupported-conflict",
            Rejection::ConflictedPasses => "conflicted-passes",
            Rejection::SidePasses => "side-passes",
            Rejection::BothSidesPass => "both-sides-pass",
            Rejection::BothSidesFail => "both-sides-fail",
            Rejection::GoldFails => "gold-fails",
        }
    }
}

/// Runs the tests on the candidate's trees, cheapest rejection first.
pub fn validate(
    candidate: &Candidate,
    conflicted: &Snapshot,
    conflicted_paths: &[String],
    runner: &TestRunner,
) -> Result<Result<Validation, Rejection>> {
    let conflicted_outcome = runner.run(conflicted)?;
    if conflicted_outcome.passed {
        return Ok(Err(Rejection::ConflictedPasses));
    }
    let ours = runner.run(&candidate.ours)?;
    if candidate.family.side_rule() == SideRule::BothFail && ours.passed {
        return Ok(Err(Rejection::SidePasses));
    }
    let theirs = runner.run(&candidate.theirs)?;
    if let Some(rejection) = check_sides(candidate.family.side_rule(), &ours, &theirs) {
        return Ok(Err(rejection));
    }
    let gold = runner.run(&candidate.gold)?;
    if !gold.passed {
        return Ok(Err(Rejection::GoldFails));
    }
    let baseline = |resolver: &dyn resolve::Resolver| runner.run(&resolve::resolve_tree(resolver, conflicted, conflicted_paths));
    let ours_first = baseline(&resolve::UnionOursFirst)?;
    let theirs_first = baseline(&resolve::UnionTheirsFirst)?;
    let baselines = Baselines {
        ours: baseline(&resolve::TakeOurs)?,
        theirs: baseline(&resolve::TakeTheirs)?,
        union: UnionOutcome { passed: ours_first.passed || theirs_first.passed, ours_first, theirs_first },
    };
    Ok(Ok(Validation { conflicted: conflicted_outcome, ours, theirs, gold, baselines }))
}

fn check_sides(rule: SideRule, ours: &Outcome, theirs: &Outcome) -> Option<Rejection> {
    match (rule, ours.passed, theirs.passed) {
        (SideRule::BothFail, false, false) => None,
        (SideRule::BothFail, _, _) => Some(Rejection::SidePasses),
        (SideRule::ExactlyOnePasses, true, true) => Some(Rejection::BothSidesPass),
        (SideRule::ExactlyOnePasses, false, false) => Some(Rejection::BothSidesFail),
        (SideRule::ExactlyOnePasses, _, _) => None,
    }
}
