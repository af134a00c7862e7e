//! Proves a candidate is a task by running its tests on every tree that matters:
//! the conflicted merge must fail, gold must pass, ours and theirs must behave as the
//! family requires, and every baseline resolver's result is tested and recorded.
//!
//! This stage owns the [`Validation`] record and the reasons a candidate is rejected.
//! It runs tests only through the sandbox's [`TestRunner`]; it does not level tasks.

use anyhow::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::forge::{Candidate, SideRule};
use crate::resolve;
pub use crate::sandbox::testrun::{Outcome, TestRunner};
use crate::snapshot::Snapshot;

/// Every outcome a task records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Validation {
    /// The merge as git left it (markers in place).
    pub conflicted: Outcome,
    /// The ours commit alone.
    pub ours: Outcome,
    /// The theirs commit alone.
    pub theirs: Outcome,
    /// The gold merge (the full suite).
    pub gold: Outcome,
    /// Every baseline resolver's result.
    pub baselines: Baselines,
}

/// Outcomes of the baseline resolvers (the ladder in [`crate::resolve::ALL`]) applied to
/// the conflicted tree. A hunk a resolver cannot resolve keeps its markers, so each
/// outcome is a real test run of what the resolver produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Baselines {
    /// Ours for every hunk.
    pub ours: Outcome,
    /// Theirs for every hunk.
    pub theirs: Outcome,
    /// Both sides of every hunk, in either order.
    pub union: UnionOutcome,
    /// The rule-based resolver.
    pub rule: Outcome,
    /// The Python-aware structured merge.
    pub structured: Outcome,
    /// `{"available": false}` when no mergiraf binary was found.
    pub mergiraf: MaybeOutcome,
}

impl Baselines {
    /// Whether taking one side solves the task (the easy rung).
    pub fn a_side_passes(&self) -> bool {
        self.ours.passed || self.theirs.passed
    }

    /// Whether a combining resolver solves it (the medium rung): union, rule,
    /// structured or mergiraf.
    pub fn a_combination_passes(&self) -> bool {
        self.union.passed || self.rule.passed || self.structured.passed || self.mergiraf.passed()
    }
}

/// The outcome of an optional baseline: a test run, or a record that it was not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MaybeOutcome {
    Ran(Outcome),
    Unavailable(Unavailable),
}

impl MaybeOutcome {
    pub fn unavailable() -> Self {
        MaybeOutcome::Unavailable(Unavailable { available: false })
    }

    pub fn passed(&self) -> bool {
        matches!(self, MaybeOutcome::Ran(outcome) if outcome.passed)
    }

    pub fn outcome(&self) -> Option<&Outcome> {
        match self {
            MaybeOutcome::Ran(outcome) => Some(outcome),
            MaybeOutcome::Unavailable(_) => None,
        }
    }
}

/// `{"available": false}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Unavailable {
    /// Always false.
    #[schemars(extend("const" = false))]
    pub available: bool,
}

/// The union resolver passes if either order passes; both orders are recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UnionOutcome {
    /// Whether either order passes.
    pub passed: bool,
    /// Ours' lines first.
    pub ours_first: Outcome,
    /// Theirs' lines first.
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
    /// The tests hit the time limit on the conflicted tree or a side: the task's signal
    /// would be a hang, not a failure, and every check of it would cost a full timeout.
    TimesOut,
    /// A kept task already has the same hunks, modulo whitespace and identifiers
    /// (decided when tasks are selected, not here).
    NearDuplicate,
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
            Rejection::TimesOut => "times-out",
            Rejection::NearDuplicate => "near-duplicate",
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
    if conflicted_outcome.timed_out {
        return Ok(Err(Rejection::TimesOut));
    }
    let ours = runner.run(&candidate.ours)?;
    if candidate.family.side_rule() == SideRule::BothFail && ours.passed {
        return Ok(Err(Rejection::SidePasses));
    }
    if ours.timed_out {
        return Ok(Err(Rejection::TimesOut));
    }
    let theirs = runner.run(&candidate.theirs)?;
    if theirs.timed_out {
        return Ok(Err(Rejection::TimesOut));
    }
    if let Some(rejection) = check_sides(candidate.family.side_rule(), &ours, &theirs) {
        return Ok(Err(rejection));
    }
    // Gold is proven on the full suite, never on a selection.
    let gold = runner.run_full(&candidate.gold)?;
    if !gold.passed {
        return Ok(Err(Rejection::GoldFails));
    }
    let baselines = run_baselines(conflicted, conflicted_paths, runner)?;
    Ok(Ok(Validation { conflicted: conflicted_outcome, ours, theirs, gold, baselines }))
}

/// Runs the tests on every baseline resolver's result. A resolver that leaves the tree
/// as it was costs nothing: the runner's cache already holds that tree's outcome.
pub fn run_baselines(conflicted: &Snapshot, conflicted_paths: &[String], runner: &TestRunner) -> Result<Baselines> {
    let run =
        |resolver: &dyn resolve::Resolver| runner.run(&resolve::resolve_tree(resolver, conflicted, conflicted_paths).0);
    let ours_first = run(&resolve::UnionOursFirst)?;
    let theirs_first = run(&resolve::UnionTheirsFirst)?;
    let mergiraf = &resolve::mergiraf::FROM_PATH;
    Ok(Baselines {
        ours: run(&resolve::TakeOurs)?,
        theirs: run(&resolve::TakeTheirs)?,
        union: UnionOutcome { passed: ours_first.passed || theirs_first.passed, ours_first, theirs_first },
        rule: run(&resolve::Rule)?,
        structured: run(&resolve::Structured)?,
        mergiraf: if mergiraf.available() { MaybeOutcome::Ran(run(mergiraf)?) } else { MaybeOutcome::unavailable() },
    })
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
