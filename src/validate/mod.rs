//! Proves a candidate is a task by running its tests on every tree that matters:
//! the conflicted merge must fail, gold must pass, ours and theirs must behave as the
//! family requires, and every baseline resolver's result is tested and recorded.
//!
//! This stage owns the [`Validation`] record and the reasons a candidate is rejected.
//! It runs tests only through the sandbox's [`TestRunner`]; it does not level tasks.

pub(crate) mod derivable;
pub(crate) mod ladder;
pub(crate) mod leak;
pub(crate) mod witness;

use anyhow::{Context, Result};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};

use crate::forge::{Candidate, SideRule};
use crate::judge::{self, runner::recorded, runner::RunnerRuns};
pub(crate) use crate::pytest::testrun::{Outcome, TestRunner};
use crate::resolve::{self, Resolver, ResolverFailure, Rung, TreeMerge};
use crate::snapshot::{self, Snapshot};
pub(crate) use ladder::AgentOutcome;
use ladder::LadderCell;

/// Every outcome a task records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Validation {
    /// Base, the tree both sides branch from (integration group: it must pass; real
    /// history: recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) base: Option<Outcome>,
    /// The merge as git left it (markers in place).
    pub conflicted: Outcome,
    /// The ours commit alone.
    pub ours: Outcome,
    /// The theirs commit alone.
    pub(crate) theirs: Outcome,
    /// The gold merge (the full suite).
    pub(crate) gold: Outcome,
    /// Every baseline resolver's result.
    pub(crate) baselines: Baselines,
}

/// Outcomes of the baseline resolvers (the ladder in [`crate::resolve::ALL`]) applied to
/// the conflicted tree, one per resolver in ladder order. A hunk a resolver cannot
/// resolve keeps its markers, so each outcome is a real test run of what the resolver
/// produced; a resolver that cannot run here is recorded as unavailable.
///
/// Above the resolvers stands the agent rung (`gen-tasks --agent-rung`): when a run has
/// one, the agent plays every task the resolvers leave hard, and its outcome is
/// recorded too.
///
/// Serialised in the [`ladder`] layout (an object keyed by the resolvers' record keys in
/// ladder order, then `agent` when the agent played), `{"available": false}` for a
/// resolver that was not run; read back, a key the record lacks (a resolver added after
/// the task was made) is unavailable.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Baselines {
    /// Parallel to [`resolve::ALL`].
    outcomes: Vec<MaybeOutcome>,
    /// The agent rung's outcome, when the agent played the task.
    pub(crate) agent: Option<AgentOutcome>,
}

impl Baselines {
    /// The outcome of every resolver of the ladder, in ladder order (the agent rung not played).
    pub(crate) fn from_fn(mut outcome: impl FnMut(&'static dyn Resolver) -> MaybeOutcome) -> Self {
        Baselines { outcomes: resolve::ALL.iter().map(|r| outcome(*r)).collect(), agent: None }
    }

    /// Every resolver of the ladder with its outcome, in ladder order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&'static dyn Resolver, &MaybeOutcome)> + '_ {
        resolve::ALL.iter().copied().zip(&self.outcomes)
    }

    /// Whether the resolvers recorded under `key` pass (any of them, for a shared key),
    /// or, for [`ladder::AGENT_KEY`], the agent rung.
    pub(crate) fn key_passes(&self, key: &str) -> bool {
        if key == ladder::AGENT_KEY {
            return self.agent.is_some_and(|a| a.passed);
        }
        self.iter().any(|(r, o)| r.record_key().key() == key && o.passed())
    }

    /// The outcome of the resolver named `name`, if it ran.
    #[cfg(test)]
    pub(crate) fn outcome(&self, name: &str) -> Option<&Outcome> {
        self.iter().find(|(r, _)| r.name() == name).and_then(|(_, o)| o.outcome())
    }

    /// The lowest rung whose resolver solves the task, if any does; else the agent
    /// rung's (medium) when the agent solved it.
    pub(crate) fn solving_rung(&self) -> Option<Rung> {
        let resolvers = self.iter().filter(|(_, o)| o.passed()).map(|(r, _)| r.rung()).min();
        resolvers.or_else(|| self.agent.filter(|a| a.passed).map(|_| Rung::Medium))
    }

    /// Whether no resolver solves the task: the agent rung, if the run has one, plays it.
    pub(crate) fn left_hard(&self) -> bool {
        !self.outcomes.iter().any(MaybeOutcome::passed)
    }

    /// Whether taking one side solves the task (the easy rung).
    pub(crate) fn a_side_passes(&self) -> bool {
        self.solving_rung() == Some(Rung::Easy)
    }

    /// Whether a combining resolver solves it (the medium rung).
    #[cfg(test)]
    pub(crate) fn a_combination_passes(&self) -> bool {
        self.iter().any(|(r, o)| r.rung() == Rung::Medium && o.passed())
    }
}

impl Serialize for Baselines {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ladder::serialize(&self.outcomes, self.agent.as_ref(), ladder::AgentColumn::WhenPlayed, serializer)
    }
}

impl<'de> Deserialize<'de> for Baselines {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (outcomes, agent) = ladder::deserialize(deserializer)?;
        Ok(Baselines { outcomes, agent })
    }
}

/// The schema of the object [`Baselines`] is written as: the ladder layout
/// ([`ladder::schema`]) with outcomes described by their resolvers.
impl JsonSchema for Baselines {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Baselines".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        ladder::schema::<MaybeOutcome>(
            generator,
            "Outcomes of the baseline resolvers (the ladder) on the conflicted tree, by record key in ladder order, \
             then the agent rung's when it played.",
            ladder::AgentColumn::WhenPlayed,
        )
    }
}

impl LadderCell for MaybeOutcome {
    fn passed(&self) -> bool {
        MaybeOutcome::passed(self)
    }

    fn missing() -> Self {
        MaybeOutcome::unavailable()
    }

    fn describe(resolver: &dyn Resolver) -> String {
        resolver.description().to_string()
    }
}

/// The outcome of an optional baseline: a test run, or a record that it was not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum MaybeOutcome {
    Ran(Outcome),
    Unavailable(Unavailable),
}

impl MaybeOutcome {
    pub(crate) fn unavailable() -> Self {
        MaybeOutcome::Unavailable(Unavailable { available: false })
    }

    pub(crate) fn passed(&self) -> bool {
        matches!(self, MaybeOutcome::Ran(outcome) if outcome.passed)
    }

    pub(crate) fn outcome(&self) -> Option<&Outcome> {
        match self {
            MaybeOutcome::Ran(outcome) => Some(outcome),
            MaybeOutcome::Unavailable(_) => None,
        }
    }
}

/// `{"available": false}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Unavailable {
    /// Always false.
    #[schemars(extend("const" = false))]
    pub(crate) available: bool,
}

/// Why a candidate is not a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, strum::IntoStaticStr)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
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
    /// The tests hit the time limit or ran out of memory on the conflicted tree or a
    /// side: the task's signal would be a hang, not a failure, and every check of it
    /// would cost a full timeout (a runaway allocation meets one limit or the other
    /// first depending on the machine, so both reject alike).
    TimesOut,
    /// A kept task already has the same hunks, modulo whitespace and identifiers
    /// (decided when tasks are selected, not here).
    NearDuplicate,
    /// A resolver of the ladder failed to run (crashed, hung, printed something
    /// unparseable): the task's level is unknown, and an unknown level is never "hard".
    LadderIncomplete,
    /// Integration group: base fails its tests (the sides must branch from a working tree).
    BaseFails,
    /// Base or a side fails because Python cannot import a module the tree does not hold:
    /// a dependency the substrate's venv lacks (`python_deps`), common in old commits.
    MissingDependency,
    /// A history commit's era (interpreter, dependencies of its date) could not be had.
    UnresolvedEnvironment,
    /// Integration group: a side fails its own suite (each side is a valid change).
    SideFails,
    /// Integration group: a commit of a side before its last fails its own suite (every
    /// commit of a branch is a valid change).
    CommitFails,
    /// Integration group: taking one side for every hunk solves the task (an easy task
    /// is a repair's; an integration task needs both changes).
    SideSolves,
    /// A side's commit message contains a line of the gold resolution that its own
    /// commit does not add: the message would hand the answer over.
    MessageLeak,
    /// Gold writes a token (a name, a literal, an operator) on a line neither side has
    /// that no side's version of the file and no side's diff holds: the resolution could
    /// not be worked out from the repository ([`derivable`]).
    NotDerivable,
    /// A semantic or mixed task over the run's cap (a quarter of the kept tasks),
    /// decided when tasks are selected.
    SemanticCap,
    /// A task whose sides make an intent already made in three kept tasks, or a pair of
    /// intents already made together in two: a version varies what it asks (decided
    /// when tasks are selected).
    RepeatedIntent,
    /// Gold passed once and failed when run again: a test the verdicts rest on flips
    /// between runs of the same tree (the flipping ids go to the run report).
    Flaky,
    /// The environment's grader, checked on the task with every baseline agent's
    /// episode: gold did not reach the maximum reward, or an agent earned more than a
    /// quarter of it without solving the task.
    GraderCheck,
}

impl Rejection {
    /// The kebab-case name, as serde writes it.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// Rejections order by name, so counts of them list as they always did.
impl Ord for Rejection {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl PartialOrd for Rejection {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Runs the tests on the candidate's trees, cheapest rejection first.
pub fn validate(
    candidate: &Candidate,
    conflicted: &Snapshot,
    conflicted_paths: &[String],
    runner: &TestRunner,
) -> Result<Result<Validation, Rejection>> {
    let rule = candidate.family.side_rule();
    // A failure that rejects is the full suite's (a selected one is confirmed); one that
    // keeps the candidate stands as it is (`TestRunner::run_deciding`).
    let conflicted_tree = snapshot::with_tests_of(conflicted, &candidate.gold);
    let conflicted_outcome = decided(runner, &conflicted_tree, Outcome::exhausted)?;
    if conflicted_outcome.passed {
        return Ok(Err(Rejection::ConflictedPasses));
    }
    if conflicted_outcome.exhausted() {
        return Ok(Err(Rejection::TimesOut));
    }
    let base = match rule {
        SideRule::BothPass => {
            let base = decided(runner, &candidate.base, |_| true)?;
            if !base.passed {
                return Ok(Err(failing(&base, &candidate.base, Rejection::BaseFails)));
            }
            Some(base)
        }
        // Real history is what it is: base's verdict is recorded, not required.
        SideRule::Recorded => Some(runner.run(&candidate.base)?),
        SideRule::BothFail | SideRule::ExactlyOnePasses => None,
    };
    let mut ours = decided(runner, &candidate.ours, |ours| early_side_check(rule, ours).is_some())?;
    if let Some(rejection) = early_side_check(rule, &ours) {
        return Ok(Err(failing(&ours, &candidate.ours, rejection)));
    }
    let theirs =
        decided(runner, &candidate.theirs, |theirs| theirs.exhausted() || check_sides(rule, &ours, theirs).is_some())?;
    if theirs.exhausted() {
        return Ok(Err(Rejection::TimesOut));
    }
    if !ours.passed && check_sides(rule, &ours, &theirs).is_some() {
        // Both sides fail where one must pass: ours's failure decides too.
        ours = runner.run_deciding(&candidate.ours)?;
        if ours.exhausted() {
            return Ok(Err(Rejection::TimesOut));
        }
    }
    if let Some(rejection) = check_sides(rule, &ours, &theirs) {
        let failed = if ours.passed { (&theirs, &candidate.theirs) } else { (&ours, &candidate.ours) };
        return Ok(Err(failing(failed.0, failed.1, rejection)));
    }
    // An integration task needs both changes: one side taken for every hunk must not
    // solve it. Those two trees are judged before gold and the rest of the ladder, which
    // finds their outcomes in the runner's cache.
    let runs = RunnerRuns::new(runner, &candidate.gold);
    let merge = TreeMerge {
        base: &candidate.base,
        ours: &candidate.ours,
        theirs: &candidate.theirs,
        conflicted,
        conflicted_paths,
    };
    if rule == SideRule::BothPass && a_side_solves(&merge, &runs)? {
        return Ok(Err(Rejection::SideSolves));
    }
    // Gold is proven on the full suite, never on a selection.
    let gold = runner.run_full(&candidate.gold)?;
    if !gold.passed {
        return Ok(Err(Rejection::GoldFails));
    }
    let flipped = runner.flips(&candidate.gold, &gold)?;
    if !flipped.is_empty() {
        log::warn!("gold's tests flip between two runs ({}); the candidate is dropped (flaky)", flipped.join(", "));
        return Ok(Err(Rejection::Flaky));
    }
    let baselines = match run_baselines(&merge, &runs)? {
        Ok(baselines) => baselines,
        Err(failure) => {
            log::warn!("{failure}; the candidate is dropped (ladder-incomplete)");
            return Ok(Err(Rejection::LadderIncomplete));
        }
    };
    // An integration task needs both changes: one side taken for every hunk must not
    // solve it (it would be an easy task, which only the repair group makes).
    if rule == SideRule::BothPass && baselines.a_side_passes() {
        return Ok(Err(Rejection::SideSolves));
    }
    // Every commit of a branch passes its own suite; the earlier ones are run last, as
    // they rarely reject and most candidates have none.
    if rule == SideRule::BothPass {
        if let Some(rejection) = earlier_commits_fail(candidate, runner)? {
            return Ok(Err(rejection));
        }
    }
    Ok(Ok(Validation { base, conflicted: conflicted_outcome, ours, theirs, gold, baselines }))
}

/// Why a side's commit before its last is not a valid change, if one is not: the first
/// that fails its own suite (decided by the full suite).
fn earlier_commits_fail(candidate: &Candidate, runner: &TestRunner) -> Result<Option<Rejection>> {
    let steps = candidate.ours_intent.earlier.iter().chain(&candidate.theirs_intent.earlier);
    for step in steps {
        let outcome = decided(runner, &step.tree, |_| true)?;
        if !outcome.passed {
            return Ok(Some(failing(&outcome, &step.tree, Rejection::CommitFails)));
        }
    }
    Ok(None)
}

/// `tree`'s verdict; when it fails and `rejects` says that failure would reject the
/// candidate, the verdict that decides it ([`TestRunner::run_deciding`]: a selected
/// failure is confirmed by the full suite), so that no selection rejects what the full
/// suite keeps.
fn decided(runner: &TestRunner, tree: &Snapshot, rejects: impl Fn(&Outcome) -> bool) -> Result<Outcome> {
    let outcome = runner.run(tree)?;
    match !outcome.passed && rejects(&outcome) {
        true => runner.run_deciding(tree),
        false => Ok(outcome),
    }
}

/// Why a tree that had to pass failed: a time-out, a dependency the venv lacks (a
/// module Python could not import and the tree does not hold), or `otherwise`.
fn failing(outcome: &Outcome, tree: &Snapshot, otherwise: Rejection) -> Rejection {
    if outcome.exhausted() {
        return Rejection::TimesOut;
    }
    if ![Rejection::SideFails, Rejection::BaseFails, Rejection::CommitFails].contains(&otherwise) {
        return otherwise;
    }
    let missing = outcome.failed_tests.iter().filter_map(|id| id.strip_prefix(crate::pytest::outcome::MISSING_MODULE));
    let outside_tree = |module: &str| {
        let top = module.trim_end_matches('>').split('.').next().unwrap_or_default();
        !tree.keys().any(|path| {
            let path = path.strip_prefix("src/").unwrap_or(path);
            path == format!("{top}.py") || path.starts_with(&format!("{top}/"))
        })
    };
    match missing.into_iter().any(outside_tree) {
        true => Rejection::MissingDependency,
        false => otherwise,
    }
}

/// The check of ours alone that can reject before theirs runs.
fn early_side_check(rule: SideRule, ours: &Outcome) -> Option<Rejection> {
    if ours.exhausted() {
        return Some(Rejection::TimesOut);
    }
    match (rule, ours.passed) {
        (SideRule::BothFail, true) => Some(Rejection::SidePasses),
        (SideRule::BothPass, false) => Some(Rejection::SideFails),
        _ => None,
    }
}

/// Runs every baseline resolver on the merge (its tree-level entry point), in ladder order, and judges each
/// result ([`judge::judge`], with `runs` holding gold); a resolver that cannot run here
/// is recorded as unavailable. A resolver that leaves the tree as it was costs nothing:
/// the runner's cache already holds that tree's outcome. The inner `Err` is the first
/// resolver that failed to run: the ladder is then incomplete.
pub(crate) fn run_baselines(merge: &TreeMerge, runs: &RunnerRuns) -> Result<Result<Baselines, ResolverFailure>> {
    let mut outcomes = Vec::with_capacity(resolve::ALL.len());
    for resolver in resolve::ALL.iter().copied() {
        if !resolver.available() {
            outcomes.push(MaybeOutcome::unavailable());
            continue;
        }
        match baseline(resolver, merge, runs)? {
            Ok(outcome) => outcomes.push(MaybeOutcome::Ran(outcome)),
            Err(failure) => return Ok(Err(failure)),
        }
    }
    Ok(Ok(Baselines { outcomes, agent: None }))
}

/// The outcome of `resolver`'s resolution of the conflicted tree, judged
/// ([`judge::judge`]) and recorded ([`recorded`]: a reason other than gold's tests is
/// listed as placeholder test ids); the inner `Err` when the resolver failed to run.
fn baseline(resolver: &dyn Resolver, merge: &TreeMerge, runs: &RunnerRuns) -> Result<Result<Outcome, ResolverFailure>> {
    let resolved = match resolve::resolve_tree(resolver, merge) {
        Ok(resolution) => resolution.tree,
        Err(failure) => return Ok(Err(failure)),
    };
    let judged =
        judge::judge(&resolved, runs.gold(), runs).with_context(|| format!("baseline `{}`", resolver.name()))?;
    Ok(Ok(recorded(judged)))
}

/// Whether a resolver of the easy rung (one side taken for every hunk: the naive sides)
/// solves the task, by the judgement. A resolver that cannot run here is left to the full
/// ladder.
fn a_side_solves(merge: &TreeMerge, runs: &RunnerRuns) -> Result<bool> {
    for resolver in resolve::ALL.iter().copied().filter(|r| r.rung() == Rung::Easy && r.available()) {
        if baseline(resolver, merge, runs)?.is_ok_and(|outcome| outcome.passed) {
            return Ok(true);
        }
    }
    Ok(false)
}

fn check_sides(rule: SideRule, ours: &Outcome, theirs: &Outcome) -> Option<Rejection> {
    match (rule, ours.passed, theirs.passed) {
        (SideRule::BothFail, false, false) => None,
        (SideRule::BothFail, _, _) => Some(Rejection::SidePasses),
        (SideRule::ExactlyOnePasses, true, true) => Some(Rejection::BothSidesPass),
        (SideRule::ExactlyOnePasses, false, false) => Some(Rejection::BothSidesFail),
        (SideRule::ExactlyOnePasses, _, _) => None,
        (SideRule::BothPass, true, true) => None,
        (SideRule::BothPass, _, _) => Some(Rejection::SideFails),
        (SideRule::Recorded, _, _) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::RecordKey;

    fn outcome(passed: bool, ms: u64) -> Outcome {
        Outcome {
            passed,
            failed_tests: Vec::new(),
            duration_ms: ms,
            timed_out: false,
            out_of_memory: false,
            last_line: String::new(),
        }
    }

    /// The record holds one entry per record key of the catalogue, in ladder order: an
    /// own key is its outcome, a shared key says whether any member passed and holds
    /// each member's outcome, an unavailable resolver is `{"available": false}`; no
    /// duration (a measurement, kept in the outcome cache) is recorded.
    #[test]
    fn baselines_are_recorded_by_key_in_ladder_order() {
        let unavailable = |r: &dyn Resolver| r.record_key() == RecordKey::Own("mergiraf");
        let passes = |r: &dyn Resolver| r.record_key() == RecordKey::Shared { key: "union", member: "theirs_first" };
        let baselines = Baselines::from_fn(|resolver| match unavailable(resolver) {
            true => MaybeOutcome::unavailable(),
            false => MaybeOutcome::Ran(outcome(passes(resolver), 1234)),
        });
        let text = serde_json::to_string(&baselines).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        let record = json.as_object().unwrap();
        let keys: Vec<&str> = resolve::record_keys().into_iter().map(|(key, _)| key).collect();
        assert_eq!(record.len(), keys.len(), "{text}");
        let at: Vec<Option<usize>> = keys.iter().map(|key| text.find(&format!("\"{key}\":"))).collect();
        assert!(at.iter().all(Option::is_some) && at.is_sorted(), "keys in ladder order: {text}");
        for (key, members) in resolve::record_keys() {
            let entry = &record[key];
            for resolver in members {
                let expected = match unavailable(resolver) {
                    true => serde_json::json!({"available": false}),
                    false => serde_json::json!({"passed": passes(resolver), "failed_tests": []}),
                };
                match resolver.record_key() {
                    RecordKey::Own(_) => assert_eq!(entry, &expected, "{key}"),
                    RecordKey::Shared { member, .. } => {
                        assert_eq!(entry[member], expected, "{key}.{member}");
                        assert_eq!(entry["passed"], serde_json::json!(key == "union"), "{key}");
                    }
                }
            }
        }
        assert!(!text.contains("1234") && !text.contains("duration"), "{text}");
        let back: Baselines = serde_json::from_value(json).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), text, "reads back to the same record");
        assert_eq!(back.solving_rung(), Some(Rung::Medium));
        assert!(!back.a_side_passes() && back.a_combination_passes() && back.key_passes("union"));
    }

    /// The agent rung's cell comes after every resolver's, only when the agent played;
    /// a record without it reads as not played, and an agent's solve levels medium
    /// only when no resolver solves the task.
    #[test]
    fn the_agent_rung_is_recorded_last_and_only_when_it_played() {
        let failing = Baselines::from_fn(|_| MaybeOutcome::Ran(outcome(false, 0)));
        let text = serde_json::to_string(&failing).unwrap();
        assert!(!text.contains("agent"), "{text}");
        assert!(failing.solving_rung().is_none());
        let back: Baselines = serde_json::from_str(&text).unwrap();
        assert_eq!(back.agent, None);

        let mut solved = failing.clone();
        solved.agent = Some(AgentOutcome { passed: true, tries: 2 });
        let text = serde_json::to_string(&solved).unwrap();
        assert!(text.ends_with(r#","agent":{"passed":true,"tries":2}}"#), "{text}");
        let back: Baselines = serde_json::from_str(&text).unwrap();
        assert_eq!(back, solved);
        assert_eq!(back.solving_rung(), Some(Rung::Medium));
        assert!(back.key_passes(ladder::AGENT_KEY));

        let mut unsolved = failing;
        unsolved.agent = Some(AgentOutcome { passed: false, tries: 3 });
        assert_eq!(unsolved.solving_rung(), None);
        let side = Baselines::from_fn(|r| MaybeOutcome::Ran(outcome(r.rung() == Rung::Easy, 1)));
        assert!(side.a_side_passes());
        assert!(
            resolve::record_keys().iter().all(|(key, _)| *key != ladder::AGENT_KEY),
            "no resolver is recorded under the agent rung's key"
        );
    }

    #[test]
    fn a_missing_key_is_unavailable_and_an_unknown_one_an_error() {
        let baselines: Baselines = serde_json::from_str(r#"{"ours": {"passed": true, "failed_tests": []}}"#).unwrap();
        assert!(baselines.a_side_passes());
        assert!(baselines.outcome("rule").is_none());
        let unknown = serde_json::from_str::<Baselines>(r#"{"telepathy": {"available": false}}"#).unwrap_err();
        assert!(unknown.to_string().contains("unknown baseline `telepathy`"), "{unknown}");
    }
}
