//! `task.json`: the record of one task (schema `schemas/task.schema.json`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::difficulty::Difficulty;
use crate::forge::Family;
use crate::mutate::OperatorRef;
use crate::validate::Validation;

pub const TASK_SCHEMA: &str = "mergeforge.task/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub schema: String,
    pub id: String,
    pub family: Family,
    pub summary: String,
    pub substrate: SubstrateRef,
    /// argv run from the repository root; `python` means the substrate's interpreter.
    pub test_command: Vec<String>,
    pub test_env: BTreeMap<String, String>,
    pub timeout_s: u64,
    pub branches: Branches,
    pub conflicts: Vec<ConflictRecord>,
    /// Files the gold merge changes although git merged them without conflict.
    pub edits_outside_conflicts: Vec<String>,
    pub mutations: Vec<MutationRecord>,
    pub difficulty: Difficulty,
    pub validation: Validation,
    /// Conflicted (as merged) and gold text of every file where they differ.
    pub files: Vec<FileRecord>,
    pub bundle_sha256: String,
    /// How agents fared on the task, set by a curriculum refresh (absent in a version
    /// made by gen-tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub curriculum: Option<CurriculumRecord>,
}

/// A task's standing after a curriculum refresh.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurriculumRecord {
    pub status: CurriculumStatus,
    /// Attempts and successes in the results the refresh read (0 when it had none).
    pub attempts: usize,
    pub successes: usize,
    /// successes / attempts, rounded to 4 decimals; null without attempts.
    pub solve_rate: Option<f64>,
    /// Mean of the attempts' rewards, rounded to 4 decimals; null when none had one.
    pub mean_reward: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CurriculumStatus {
    /// In the training split.
    Active,
    /// In the training split, never solved over many attempts.
    FrontierHard,
    /// Moved to the retired split: solved nearly always.
    Retired,
    /// Added by the refresh to refill its (family, level) cell.
    New,
}

impl CurriculumStatus {
    pub fn name(self) -> &'static str {
        match self {
            CurriculumStatus::Active => "active",
            CurriculumStatus::FrontierHard => "frontier-hard",
            CurriculumStatus::Retired => "retired",
            CurriculumStatus::New => "new",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubstrateRef {
    pub name: String,
    /// HEAD commit when the substrate is a git repository, else null.
    pub commit: Option<String>,
    /// sha256 over the substrate's files (paths and bytes).
    pub tree: String,
}

/// Commit ids of the bundle's branches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Branches {
    pub base: String,
    pub ours: String,
    pub theirs: String,
    pub gold: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConflictRecord {
    pub path: String,
    pub hunks: usize,
    pub conflicted_lines: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MutationRecord {
    pub operator: OperatorRef,
    pub path: String,
    pub line: usize,
    pub function: Option<String>,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub conflicted: String,
    pub gold: String,
}

/// Pretty JSON with a trailing newline: the exact bytes written to disk.
pub fn to_json_bytes<T: Serialize>(value: &T) -> anyhow::Result<Vec<u8>> {
    let mut bytes = serde_json::to_vec_pretty(value)?;
    bytes.push(b'\n');
    Ok(bytes)
}
