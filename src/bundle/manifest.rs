//! `manifest.json`: what a dataset version holds and how it was made
//! (schema `schemas/manifest.schema.json`). Written last: a version directory without
//! a manifest is unfinished.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::difficulty::Level;
use crate::forge::Family;

pub const MANIFEST_SCHEMA: &str = "mergeforge.manifest/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub schema: String,
    pub dataset: String,
    pub version: String,
    pub generator: Generator,
    /// The canonical command line that reproduces this version.
    pub command: Vec<String>,
    pub seed: u64,
    pub substrates: Vec<SubstrateEntry>,
    pub counts: Counts,
    pub tasks: Vec<TaskEntry>,
    /// Tasks a curriculum refresh retired (files under `retired/tasks/<id>/`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retired: Vec<TaskEntry>,
    /// The version a curriculum refresh made this one from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<ParentVersion>,
    /// For a curriculum version: the gen-tasks command line whose substrates, families
    /// and limits refill under-supplied cells (with `seed` instead of its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gen_command: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParentVersion {
    pub version: String,
    /// sha256 of the parent's `manifest.json` bytes.
    pub manifest_sha256: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generator {
    pub name: String,
    pub version: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubstrateEntry {
    pub name: String,
    pub commit: Option<String>,
    pub tree: String,
    pub tasks: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    pub tasks: usize,
    pub by_level: BTreeMap<Level, usize>,
    pub by_family: BTreeMap<Family, usize>,
    /// Tasks in the retired split (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub retired: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskEntry {
    pub id: String,
    pub level: Level,
    pub family: Family,
    pub substrate: String,
    /// sha256 of the task's `task.json` bytes.
    pub task_sha256: String,
}
