//! `task.json`: what a trainer or an agent-facing consumer may see of one task (schema
//! `schemas/task.schema.json`, generated from these types by `mergeforge regenerate`).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::difficulty::Difficulty;
use crate::forge::Family;

pub(crate) const TASK_SCHEMA: &str = "mergeforge.task/3";
/// The format before `python` (read as it is: its tasks run on the default interpreter).
pub(crate) const TASK_SCHEMA_V2: &str = "mergeforge.task/2";

/// `task.json`: what a trainer or an agent-facing consumer may see of a task. Nothing
/// here tells the answer: gold text, the summary, the mutations and the validation
/// details are in `solution.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "mergeforge task (task.json)")]
pub struct Task {
    /// `mergeforge.task/3` (`mergeforge.task/2`: a version written before `python`).
    #[schemars(extend("enum" = [TASK_SCHEMA_V2, TASK_SCHEMA]))]
    pub(crate) schema: String,
    /// `<substrate>-<10 hex>`: the substrate's name and a digest of the task's commits.
    #[schemars(pattern(crate::bundle::patterns::TASK_ID))]
    pub id: String,
    /// The task family that made the task.
    pub(crate) family: Family,
    /// How the task shows up when the sides are merged.
    pub conflict_kind: ConflictKind,
    /// The project the task was made from.
    pub(crate) substrate: SubstrateRef,
    /// argv run from the repository root; `python` means the substrate's interpreter.
    #[schemars(length(min = 1))]
    pub(crate) test_command: Vec<String>,
    /// Environment variables the test command runs with.
    pub(crate) test_env: BTreeMap<String, String>,
    /// Seconds the test command may run.
    #[schemars(range(min = 1))]
    pub(crate) timeout_s: u64,
    /// How much the two branches change (format 3; `small` when absent: every task of a
    /// version written before scales).
    #[serde(default)]
    pub scale: crate::difficulty::Scale,
    /// The interpreter and the distributions the task's tests ran with (format 3; absent
    /// in format 2, whose tasks run on the default interpreter with pytest alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<TaskPython>,
    /// Every file `git merge` leaves conflicted.
    #[schemars(length(min = 1))]
    pub(crate) conflicts: Vec<ConflictRecord>,
    /// Level and score.
    pub difficulty: Difficulty,
    /// How agents fared on the task, set by a curriculum refresh (absent in a version
    /// made by gen-tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curriculum: Option<CurriculumRecord>,
    /// sha256 (lowercase hex) of the task's other files.
    pub sha256: Digests,
}

/// The Python a task's tests need: serve and eval build it for the task's episodes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskPython {
    /// The interpreter's version (`3.11.7`); an interpreter of the same minor version runs it.
    #[schemars(pattern(r"^[0-9]+\.[0-9]+(\.[0-9]+)?$"))]
    pub version: String,
    /// Every distribution installed beside it, `name==version`, sorted (pytest included).
    pub lock: Vec<String>,
}

/// How the task shows up when the sides are merged.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ConflictKind {
    /// `git merge` stops with conflict markers.
    Textual,
    /// A clean merge whose tests fail.
    Semantic,
    /// Markers plus a break outside them.
    Mixed,
}

impl ConflictKind {
    /// The kebab-case name, as serde writes it.
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }
}

/// sha256 of the task's files next to `task.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Digests {
    /// Of `repo.bundle` (branches base, ours, theirs).
    #[serde(rename = "repo.bundle")]
    #[schemars(pattern(crate::bundle::patterns::SHA256))]
    pub repo_bundle: String,
    /// Of `solution.bundle` (branch gold).
    #[serde(rename = "solution.bundle")]
    #[schemars(pattern(crate::bundle::patterns::SHA256))]
    pub solution_bundle: String,
    /// Of `solution.json`.
    #[serde(rename = "solution.json")]
    #[schemars(pattern(crate::bundle::patterns::SHA256))]
    pub solution_json: String,
}

/// A task's standing after a curriculum refresh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CurriculumRecord {
    /// Where the refresh put the task.
    pub(crate) status: CurriculumStatus,
    /// Attempts in the results the refresh read (0 when it had none).
    pub(crate) attempts: usize,
    /// Successful attempts among them.
    pub(crate) successes: usize,
    /// successes / attempts, rounded to 4 decimals; null without attempts.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub(crate) solve_rate: Option<f64>,
    /// Mean of the attempts' rewards, rounded to 4 decimals; null when none had one.
    pub(crate) mean_reward: Option<f64>,
}

/// Where a curriculum refresh put a task.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema, strum::IntoStaticStr,
)]
#[strum(serialize_all = "kebab-case")]
#[serde(rename_all = "kebab-case")]
pub(crate) enum CurriculumStatus {
    /// In the training split.
    Active,
    /// In the training split, never solved over many attempts.
    FrontierHard,
    /// Moved to the retired split: solved nearly always.
    Retired,
    /// Added by the refresh to refill its (family, level) cell.
    New,
}

/// The project a task was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SubstrateRef {
    /// The substrate's name.
    #[schemars(length(min = 1))]
    pub(crate) name: String,
    /// HEAD commit when the substrate is a git repository, else null.
    #[schemars(pattern(crate::bundle::patterns::COMMIT_ID))]
    pub(crate) commit: Option<String>,
}

/// One conflicted file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConflictRecord {
    /// Repository-relative path.
    #[schemars(pattern(crate::bundle::patterns::PATH))]
    pub(crate) path: String,
    /// Conflict hunks in the file (0 in a semantic task: a file both sides changed,
    /// merged without markers).
    pub(crate) hunks: usize,
    /// Lines between the hunks' markers.
    pub(crate) conflicted_lines: usize,
}

impl Task {
    /// Whether git's merge leaves conflict markers in `path`: a file listed with hunks
    /// (a semantic task lists the files both sides changed, merged without markers).
    pub(crate) fn has_markers(&self, path: &str) -> bool {
        self.conflicts.iter().any(|c| c.path == path && c.hunks > 0)
    }
}

/// Pretty JSON with a trailing newline: the exact bytes written to disk.
pub fn to_json_bytes<T: Serialize>(value: &T) -> anyhow::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}
