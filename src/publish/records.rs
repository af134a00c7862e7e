//! The flat records: two JSON objects per task, typed the same way in every row so
//! that `datasets` (pyarrow) infers a single schema, plus the train/test split and the
//! sharding of records into JSONL files.
//!
//! - [`TaskRecord`], the agent-facing config: exactly `task.json`'s fields and the path
//!   of the task's `repo.bundle`. Nothing of the answer.
//! - [`SolutionRecord`], the `solutions` config: `solution.json`'s fields, the task's
//!   split group and the path of its `solution.bundle`. A trainer may leave it out.
//!
//! The shape is made for tables: maps become lists of `{name, value}`, every outcome has
//! the same keys (`timed_out` is always present), and a nullable field is `null` rather
//! than absent. The conversion back ([`task_from_records`]) gives `task.json` and
//! `solution.json` byte for byte, which the tests check against the sha256s in the
//! manifest and `task.json`.
//!
//! This module does no I/O.

use anyhow::{bail, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::flat_outcome::{FlatBaselines, FlatOutcome};
use crate::bundle::solution::{Commits, FileRecord, GraderCheck, Intents, Solution};
use crate::bundle::task::{ConflictKind, ConflictRecord, CurriculumRecord, Digests, SubstrateRef, Task, TaskPython};
use crate::difficulty::{Difficulty, Features};
use crate::forge::Family;
use crate::pytest::testrun::Outcome;
use crate::validate::{Baselines, Validation};

/// One row of an agent-facing config: `task.json`'s fields, in its order, and the
/// task's `repo.bundle`. Field order is the column order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskRecord {
    /// `mergeforge.task/3` (`mergeforge.task/2` in versions written before `python`)
    pub(crate) schema: String,
    /// task id: `<substrate>-<10 hex>`, content-derived (it names no family)
    pub id: String,
    /// how the conflict was made (table above)
    pub family: Family,
    /// `textual` (git stops with markers), `semantic` (clean merge, failing tests) or `mixed`
    pub(crate) conflict_kind: ConflictKind,
    /// `name`, `commit` (null when the substrate is a folder)
    pub(crate) substrate: SubstrateRef,
    /// argv run from the repository root; `python` means an interpreter with pytest
    pub test_command: Vec<String>,
    /// extra environment for the test command
    pub test_env: Vec<EnvVar>,
    /// time limit of one test run
    pub timeout_s: u64,
    /// `small`, `medium` or `large`: how much the two branches change
    pub scale: crate::difficulty::Scale,
    /// `version` and `lock` (`name==version` of every distribution) of the Python the tests ran with; null in format 2
    pub python: Option<TaskPython>,
    /// the files git left conflicted (or, for a semantic task, whose tests fail), with hunks and conflicted lines
    pub conflicts: Vec<ConflictRecord>,
    /// `level` (`easy`, `medium`, `hard`), `structural_level` (the ladder's, equal to `level` unless a curriculum
    /// refresh re-levelled the task) and `score` in [0, 1]
    pub difficulty: Difficulty,
    /// `status`, `attempts`, `successes`, `solve_rate`, `mean_reward` from a curriculum refresh; null otherwise
    pub curriculum: Option<CurriculumRecord>,
    /// sha256 of `repo.bundle`, `solution.bundle` and `solution.json`, as `task.json` records them
    pub sha256: Digests,
    /// path of the task's `repo.bundle` (branches base, ours, theirs) in this repository
    pub bundle: String,
}

/// One row of the `solutions` config: `solution.json`'s fields, the split group and
/// the task's `solution.bundle`. Field order is the column order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SolutionRecord {
    /// always `mergeforge.solution/2`
    pub(crate) schema: String,
    /// the task's id (join with the task configs on it)
    pub id: String,
    /// the split group: `<substrate>:<path>:<qualname>` of the scope holding the first conflict hunk; a group's
    /// tasks are all in one split
    pub group: String,
    /// one line on what the two sides did and how gold combines them (it states the resolution)
    pub(crate) summary: String,
    /// commit ids of `base`, `ours`, `theirs` (in `bundle`) and `gold` (in `solution_bundle`)
    pub(crate) commits: Commits,
    /// every file the gold merge differs in: merged text (with diff3 markers when `has_conflict`) and gold text
    pub(crate) files: Vec<FlatFile>,
    /// files gold changes although git merged them cleanly
    pub(crate) edits_outside_conflicts: Vec<String>,
    /// `ours` and `theirs`: each side's commit `message` and the `mutations` (AST edits) its change concerns
    pub(crate) intents: Intents,
    /// the interaction graph: each change of one side reaching the other side's feature
    /// (`side`, `kind`, `change`, `feature`, `witnessed`)
    pub(crate) interactions: Vec<crate::bundle::solution::InteractionRecord>,
    /// tests on `conflicted`, `ours`, `theirs`, `gold`
    pub(crate) validation: FlatValidation,
    /// tests after each baseline resolver of the ladder (`union` records both orders; a resolver whose tool was
    /// not available is null)
    pub(crate) baselines: FlatBaselines,
    /// what the score is computed from
    pub(crate) features: Features,
    /// the environment's grader checked at generation: each baseline agent's reward `share` of the maximum and
    /// whether it `solved` the task, and `gold_passing`, the test ids a graded tree must pass
    pub(crate) grader: Option<GraderCheck>,
    /// the real commits a task of the project's history was made from (`kind` commit or merge, the `commit` it
    /// stands for, its `base` and the `sides`' commits); null on generated tasks
    pub(crate) origin: Option<crate::substrate::history::RealOrigin>,
    /// path of the task's `solution.bundle` (branch gold) in this repository
    pub solution_bundle: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EnvVar {
    pub(crate) name: String,
    pub(crate) value: String,
}

/// A file as merged (`conflicted`, with diff3 markers when `has_conflict`) and as gold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct FlatFile {
    pub(crate) path: String,
    /// True if the file is among the task's conflicts; false for a file gold edits
    /// although git merged it cleanly.
    pub(crate) has_conflict: bool,
    pub(crate) conflicted: String,
    pub(crate) gold: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct FlatValidation {
    pub(crate) base: Option<FlatOutcome>,
    pub(crate) conflicted: FlatOutcome,
    pub(crate) ours: FlatOutcome,
    pub(crate) theirs: FlatOutcome,
    pub(crate) gold: FlatOutcome,
}

/// Where a task's `repo.bundle` lives in the published folder.
pub(crate) fn bundle_path(task_id: &str) -> String {
    format!("bundles/{task_id}.bundle")
}

/// Where a task's `solution.bundle` lives in the published folder (a folder of its
/// own, so that a download can leave every solution out).
pub(crate) fn solution_bundle_path(task_id: &str) -> String {
    format!("solutions/{task_id}.bundle")
}

/// The agent-facing record of a task.
pub(crate) fn task_record(task: &Task) -> TaskRecord {
    TaskRecord {
        schema: task.schema.clone(),
        id: task.id.clone(),
        family: task.family,
        conflict_kind: task.conflict_kind,
        substrate: task.substrate.clone(),
        test_command: task.test_command.clone(),
        test_env: task
            .test_env
            .iter()
            .map(|(name, value)| EnvVar { name: name.clone(), value: value.clone() })
            .collect(),
        timeout_s: task.timeout_s,
        scale: task.scale,
        python: task.python.clone(),
        conflicts: task.conflicts.clone(),
        difficulty: task.difficulty.clone(),
        curriculum: task.curriculum.clone(),
        sha256: task.sha256.clone(),
        bundle: bundle_path(&task.id),
    }
}

/// The solution record of a task, in split group `group`.
pub(crate) fn solution_record(task: &Task, solution: &Solution, group: String) -> SolutionRecord {
    let v = &solution.validation;
    SolutionRecord {
        schema: solution.schema.clone(),
        id: solution.id.clone(),
        group,
        summary: solution.summary.clone(),
        commits: solution.commits.clone(),
        files: solution
            .files
            .iter()
            .map(|f| FlatFile {
                path: f.path.clone(),
                has_conflict: task.has_markers(&f.path),
                conflicted: f.conflicted.clone(),
                gold: f.gold.clone(),
            })
            .collect(),
        edits_outside_conflicts: solution.edits_outside_conflicts.clone(),
        intents: solution.intents.clone(),
        interactions: solution.interactions.clone(),
        validation: FlatValidation {
            base: v.base.as_ref().map(FlatOutcome::from),
            conflicted: FlatOutcome::from(&v.conflicted),
            ours: FlatOutcome::from(&v.ours),
            theirs: FlatOutcome::from(&v.theirs),
            gold: FlatOutcome::from(&v.gold),
        },
        baselines: FlatBaselines::from(&v.baselines),
        features: solution.features.clone(),
        grader: solution.grader.clone(),
        origin: solution.origin.clone(),
        solution_bundle: solution_bundle_path(&solution.id),
    }
}

/// The task.json a record was made from (the inverse of [`task_record`]).
pub(crate) fn task_from_record(record: &TaskRecord) -> Task {
    Task {
        schema: record.schema.clone(),
        id: record.id.clone(),
        family: record.family,
        conflict_kind: record.conflict_kind,
        substrate: record.substrate.clone(),
        test_command: record.test_command.clone(),
        test_env: record.test_env.iter().map(|v| (v.name.clone(), v.value.clone())).collect(),
        timeout_s: record.timeout_s,
        scale: record.scale,
        python: record.python.clone(),
        conflicts: record.conflicts.clone(),
        difficulty: record.difficulty.clone(),
        curriculum: record.curriculum.clone(),
        sha256: record.sha256.clone(),
    }
}

/// The solution.json a record was made from (the inverse of [`solution_record`]).
pub(crate) fn solution_from_record(record: &SolutionRecord) -> Solution {
    Solution {
        schema: record.schema.clone(),
        id: record.id.clone(),
        summary: record.summary.clone(),
        commits: record.commits.clone(),
        files: record
            .files
            .iter()
            .map(|f| FileRecord { path: f.path.clone(), conflicted: f.conflicted.clone(), gold: f.gold.clone() })
            .collect(),
        edits_outside_conflicts: record.edits_outside_conflicts.clone(),
        intents: record.intents.clone(),
        interactions: record.interactions.clone(),
        validation: Validation {
            base: record.validation.base.as_ref().map(Outcome::from),
            conflicted: Outcome::from(&record.validation.conflicted),
            ours: Outcome::from(&record.validation.ours),
            theirs: Outcome::from(&record.validation.theirs),
            gold: Outcome::from(&record.validation.gold),
            baselines: Baselines::from(&record.baselines),
        },
        features: record.features.clone(),
        grader: record.grader.clone(),
        origin: record.origin.clone(),
    }
}

/// The task and solution two records were made from.
pub fn task_from_records(task: &TaskRecord, solution: &SolutionRecord) -> (Task, Solution) {
    (task_from_record(task), solution_from_record(solution))
}

/// The two splits, in the order they are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Split {
    Train,
    Test,
}

impl Split {
    pub(crate) const ALL: [Split; 2] = [Split::Train, Split::Test];

    pub(crate) fn name(self) -> &'static str {
        self.into()
    }
}

/// The split of a task's group (see [`super::group`]): the first 8 bytes of
/// sha256(group), read as a fraction of 2^64, below `test_ratio` means test. Depends on
/// the group alone, so every task of a group is in one split, a group keeps its split
/// across versions, and ratios only move groups from train to test as they grow.
pub fn split_of(group: &str, test_ratio: f64) -> Split {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(group.as_bytes());
    let mut head = [0u8; 8];
    head.copy_from_slice(&digest[..8]);
    let fraction = u64::from_be_bytes(head) as f64 / 18_446_744_073_709_551_616.0;
    if fraction < test_ratio {
        Split::Test
    } else {
        Split::Train
    }
}

/// One JSONL line (compact JSON and a newline) per record.
pub(crate) fn jsonl_line(record: &impl Serialize) -> Result<Vec<u8>> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    Ok(line)
}

/// Packs lines into shards of at most `max_bytes`, in order: a shard is closed when the
/// next line would take it over the limit. A single line over the limit is an error
/// (it could not be stored without breaking the limit).
pub(crate) fn shard_lines(lines: &[(String, Vec<u8>)], max_bytes: u64) -> Result<Vec<Vec<u8>>> {
    let mut shards: Vec<Vec<u8>> = Vec::new();
    let mut current: Vec<u8> = Vec::new();
    for (id, line) in lines {
        if line.len() as u64 > max_bytes {
            bail!(
                "task {id}: its record is {} bytes, over the shard limit of {max_bytes} bytes; raise --max-shard-bytes",
                line.len()
            );
        }
        if !current.is_empty() && (current.len() + line.len()) as u64 > max_bytes {
            shards.push(std::mem::take(&mut current));
        }
        current.extend_from_slice(line);
    }
    if !current.is_empty() {
        shards.push(current);
    }
    Ok(shards)
}

/// The file name of shard `index` of a split: `train-00000.jsonl`.
pub(crate) fn shard_name(split: Split, index: usize) -> String {
    format!("{}-{index:05}.jsonl", split.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The property names of a type's JSON Schema, sorted.
    fn fields(schema: schemars::Schema) -> Vec<String> {
        let mut names: Vec<String> = schema
            .as_value()
            .get("properties")
            .and_then(|p| p.as_object())
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    /// The flat shapes keep every rung and outcome key of the record types (until the
    /// flat record is derived from them): a new resolver in `Baselines` fails here.
    #[test]
    fn flat_shapes_have_every_field_of_the_record_types() {
        use schemars::schema_for;
        let (flat, baselines) = (schema_for!(FlatBaselines), schema_for!(Baselines));
        assert_eq!(fields(flat.clone()), fields(baselines.clone()));
        for (key, _) in crate::resolve::record_keys() {
            let column = |s: &schemars::Schema| schemars::Schema::try_from(s.as_value()["properties"][key].clone());
            assert_eq!(fields(column(&flat).unwrap()), fields(column(&baselines).unwrap()), "column {key}");
        }
        assert_eq!(fields(schema_for!(FlatOutcome)), fields(schema_for!(Outcome)));
        let mut validation = fields(schema_for!(FlatValidation));
        validation.push("baselines".into());
        validation.sort();
        assert_eq!(validation, fields(schema_for!(Validation)));
    }

    #[test]
    fn shards_close_before_the_limit() {
        let lines: Vec<(String, Vec<u8>)> = (0..5).map(|i| (format!("t{i}"), vec![b'x'; 40])).collect();
        let shards = shard_lines(&lines, 100).unwrap();
        assert_eq!(shards.iter().map(Vec::len).collect::<Vec<_>>(), vec![80, 80, 40]);
        assert!(shard_lines(&lines, 39).unwrap_err().to_string().contains("task t0"));
    }

    #[test]
    fn splits_follow_the_ratio() {
        let ids: Vec<String> = (0..2000).map(|i| format!("task-{i}")).collect();
        let test = ids.iter().filter(|id| split_of(id, 0.2) == Split::Test).count();
        assert!((300..500).contains(&test), "{test} of 2000 in test");
        assert!(ids.iter().all(|id| split_of(id, 0.0) == Split::Train));
        assert!(ids.iter().all(|id| split_of(id, 1.0) == Split::Test));
        // Growing the ratio only moves tasks into test.
        assert!(ids.iter().all(|id| split_of(id, 0.2) == Split::Train || split_of(id, 0.5) == Split::Test));
    }
}
