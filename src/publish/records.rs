//! The flat record: one JSON object per task, typed the same way in every row so that
//! `datasets` (pyarrow) infers a single schema, plus the train/test split and the
//! sharding of records into JSONL files.
//!
//! A record carries everything `task.json` and `solution.json` hold, in a shape made
//! for tables: maps become lists of `{name, value}`, every outcome has the same keys
//! (`timed_out` is always present), and a nullable field is `null` rather than absent.
//! The conversion back ([`task_from_record`]) gives `task.json` and `solution.json`
//! byte for byte, which the tests check against the sha256s in the manifest and
//! `task.json`.
//!
//! This module does no I/O.

use anyhow::{bail, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::flat_outcome::{FlatBaselines, FlatOutcome};
use crate::bundle::solution::{Commits, FileRecord, GraderCheck, Intents, Solution, SOLUTION_SCHEMA};
use crate::bundle::task::{
    ConflictKind, ConflictRecord, CurriculumRecord, CurriculumStatus, Digests, SubstrateRef, Task, TASK_SCHEMA,
};
use crate::difficulty::{Difficulty, Features, Level};
use crate::forge::Family;
use crate::pytest::testrun::Outcome;
use crate::validate::{Baselines, Validation};

/// One row of the published dataset. Field order is the column order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FlatRecord {
    /// task id: `<substrate>-<10 hex>`, content-derived (it names no family)
    pub id: String,
    /// how the conflict was made (table above)
    pub family: Family,
    /// `textual` (git stops with markers), `semantic` (clean merge, failing tests) or `mixed`
    pub conflict_kind: ConflictKind,
    /// `easy`, `medium` or `hard`
    pub level: Level,
    /// the level the baseline ladder gave (equal to `level` unless a curriculum refresh re-levelled the task)
    pub structural_level: Level,
    /// difficulty in [0, 1]
    pub score: f64,
    /// one line on what the two sides did and how gold combines them (a grader's field: it states the resolution)
    pub summary: String,
    /// `name`, `commit` (null when the substrate is a folder)
    pub substrate: SubstrateRef,
    /// argv run from the repository root; `python` means an interpreter with pytest
    pub test_command: Vec<String>,
    /// extra environment for the test command
    pub test_env: Vec<EnvVar>,
    /// time limit of one test run
    pub timeout_s: u64,
    /// commit ids of `base`, `ours`, `theirs` (in `bundle`) and `gold` (in `solution_bundle`)
    pub commits: Commits,
    /// the files git left conflicted
    pub conflicts: Vec<ConflictRecord>,
    /// files gold changes although git merged them cleanly
    pub edits_outside_conflicts: Vec<String>,
    /// `ours` and `theirs`: each side's commit `message` and the `mutations` (AST edits) its change concerns
    pub intents: Intents,
    /// what the score is computed from
    pub features: Features,
    /// every file the gold merge differs in: merged text (with diff3 markers when `has_conflict`) and gold text
    pub files: Vec<FlatFile>,
    /// tests on `conflicted`, `ours`, `theirs`, `gold`
    pub validation: FlatValidation,
    /// tests after each baseline resolver of the ladder (`union` records both orders; a resolver whose tool was
    /// not available is null)
    pub baselines: FlatBaselines,
    /// the environment's grader checked at generation: each baseline agent's reward `share` of the maximum and
    /// whether it `solved` the task, and `gold_passing`, the test ids a graded tree must pass
    pub grader: Option<GraderCheck>,
    /// `status`, `attempts`, `successes`, `solve_rate`, `mean_reward` from a curriculum refresh; null otherwise
    pub curriculum: Option<FlatCurriculum>,
    /// path of the task's `repo.bundle` (branches base, ours, theirs) in this repository
    pub bundle: String,
    /// path of the task's `solution.bundle` (branch gold) in this repository
    pub solution_bundle: String,
    /// sha256 of `repo.bundle`, `solution.bundle` and `solution.json`, as `task.json` records them
    pub sha256: Digests,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EnvVar {
    pub name: String,
    pub value: String,
}

/// A file as merged (`conflicted`, with diff3 markers when `has_conflict`) and as gold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FlatFile {
    pub path: String,
    /// True if git left conflict markers in this file; false for a file gold edits
    /// although git merged it cleanly.
    pub has_conflict: bool,
    pub conflicted: String,
    pub gold: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FlatValidation {
    pub base: Option<FlatOutcome>,
    pub conflicted: FlatOutcome,
    pub ours: FlatOutcome,
    pub theirs: FlatOutcome,
    pub gold: FlatOutcome,
}

/// A task's curriculum record, every key present.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FlatCurriculum {
    pub status: CurriculumStatus,
    pub attempts: usize,
    pub successes: usize,
    pub solve_rate: Option<f64>,
    pub mean_reward: Option<f64>,
}

/// Where a task's `repo.bundle` lives in the published folder.
pub fn bundle_path(task_id: &str) -> String {
    format!("bundles/{task_id}.bundle")
}

/// Where a task's `solution.bundle` lives in the published folder.
pub fn solution_bundle_path(task_id: &str) -> String {
    format!("bundles/{task_id}.solution.bundle")
}

/// The flat record of a task and its solution.
pub fn record_from_task(task: &Task, solution: &Solution) -> FlatRecord {
    let conflicted_paths: Vec<&str> = task.conflicts.iter().map(|c| c.path.as_str()).collect();
    let v = &solution.validation;
    FlatRecord {
        id: task.id.clone(),
        family: task.family,
        conflict_kind: task.conflict_kind,
        level: task.difficulty.level,
        structural_level: task.difficulty.structural_level,
        score: task.difficulty.score,
        summary: solution.summary.clone(),
        substrate: task.substrate.clone(),
        test_command: task.test_command.clone(),
        test_env: task
            .test_env
            .iter()
            .map(|(name, value)| EnvVar { name: name.clone(), value: value.clone() })
            .collect(),
        timeout_s: task.timeout_s,
        commits: solution.commits.clone(),
        conflicts: task.conflicts.clone(),
        edits_outside_conflicts: solution.edits_outside_conflicts.clone(),
        intents: solution.intents.clone(),
        features: solution.features.clone(),
        files: solution
            .files
            .iter()
            .map(|f| FlatFile {
                path: f.path.clone(),
                has_conflict: conflicted_paths.contains(&f.path.as_str()),
                conflicted: f.conflicted.clone(),
                gold: f.gold.clone(),
            })
            .collect(),
        validation: FlatValidation {
            base: v.base.as_ref().map(FlatOutcome::from),
            conflicted: FlatOutcome::from(&v.conflicted),
            ours: FlatOutcome::from(&v.ours),
            theirs: FlatOutcome::from(&v.theirs),
            gold: FlatOutcome::from(&v.gold),
        },
        baselines: FlatBaselines::from(&v.baselines),
        grader: solution.grader.clone(),
        curriculum: task.curriculum.as_ref().map(|c| FlatCurriculum {
            status: c.status,
            attempts: c.attempts,
            successes: c.successes,
            solve_rate: c.solve_rate,
            mean_reward: c.mean_reward,
        }),
        bundle: bundle_path(&task.id),
        solution_bundle: solution_bundle_path(&task.id),
        sha256: task.sha256.clone(),
    }
}

/// The task and solution a record was made from (the inverse of [`record_from_task`]).
pub fn task_from_record(record: &FlatRecord) -> (Task, Solution) {
    let task = Task {
        schema: TASK_SCHEMA.to_string(),
        id: record.id.clone(),
        family: record.family,
        conflict_kind: record.conflict_kind,
        substrate: record.substrate.clone(),
        test_command: record.test_command.clone(),
        test_env: record.test_env.iter().map(|v| (v.name.clone(), v.value.clone())).collect(),
        timeout_s: record.timeout_s,
        conflicts: record.conflicts.clone(),
        difficulty: Difficulty { level: record.level, structural_level: record.structural_level, score: record.score },
        curriculum: record.curriculum.as_ref().map(|c| CurriculumRecord {
            status: c.status,
            attempts: c.attempts,
            successes: c.successes,
            solve_rate: c.solve_rate,
            mean_reward: c.mean_reward,
        }),
        sha256: record.sha256.clone(),
    };
    let solution = Solution {
        schema: SOLUTION_SCHEMA.to_string(),
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
    };
    (task, solution)
}

/// The two splits, in the order they are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum Split {
    Train,
    Test,
}

impl Split {
    pub const ALL: [Split; 2] = [Split::Train, Split::Test];

    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// The split of a task: the first 8 bytes of sha256(id), read as a fraction of 2^64,
/// below `test_ratio` means test. Depends on the id alone, so a task keeps its split
/// across versions and ratios only move tasks from train to test as they grow.
pub fn split_of(task_id: &str, test_ratio: f64) -> Split {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(task_id.as_bytes());
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
pub fn jsonl_line(record: &FlatRecord) -> Result<Vec<u8>> {
    let mut line = serde_json::to_vec(record)?;
    line.push(b'\n');
    Ok(line)
}

/// Packs lines into shards of at most `max_bytes`, in order: a shard is closed when the
/// next line would take it over the limit. A single line over the limit is an error
/// (it could not be stored without breaking the limit).
pub fn shard_lines(lines: &[(String, Vec<u8>)], max_bytes: u64) -> Result<Vec<Vec<u8>>> {
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
pub fn shard_name(split: Split, index: usize) -> String {
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
