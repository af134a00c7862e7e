//! What a curriculum refresh reads ([`RefreshOptions`], the [`Parent`] version), decides
//! ([`Plan`]: every task's [`TaskChange`], the [`Changes`] by cell) and reports
//! ([`RefreshReport`]). The deciding and writing are in the parent module; the changelog
//! renders a plan.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::relevel::Decision;
use super::results::Stats;
use crate::bundle::dataset::WriteResult;
use crate::bundle::manifest::Manifest;
use crate::bundle::record::TaskFiles;
use crate::difficulty::quota::Shortfall;
use crate::difficulty::Level;
use crate::forge::Family;

/// What a refresh reads and where it writes.
#[derive(Debug, Clone)]
pub(crate) struct RefreshOptions {
    /// A version folder (with `manifest.json`), or a dataset folder (its highest version).
    pub(crate) dataset: PathBuf,
    pub(crate) results: PathBuf,
    /// Output root: the version goes to `OUT/<dataset>/<next version>/`.
    pub(crate) out: PathBuf,
    /// Test-outcome cache for refills (default `OUT/.mergeforge-cache`).
    pub(crate) cache_dir: Option<PathBuf>,
    /// Seed for refills (default: the parent's seed + 1).
    pub(crate) seed: Option<u64>,
    pub(crate) jobs: usize,
    pub(crate) progress: bool,
    /// The canonical command line recorded in the manifest.
    pub(crate) command: Vec<String>,
}

/// A stored task: its records and files, checked against the manifest.
pub(crate) type StoredTask = TaskFiles;

/// The parent version, read and checked.
#[derive(Debug, Clone)]
pub(crate) struct Parent {
    pub(crate) dir: PathBuf,
    pub(crate) manifest: Manifest,
    pub(crate) manifest_sha256: String,
    pub(crate) active: Vec<StoredTask>,
    pub(crate) retired: Vec<StoredTask>,
    pub(crate) changelog: Option<String>,
}

/// A task whose standing changed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TaskChange {
    pub(crate) id: String,
    pub(crate) family: Family,
    pub(crate) from: Level,
    pub(crate) to: Level,
    pub(crate) successes: usize,
    pub(crate) attempts: usize,
}

/// Counts of one (family, level) cell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct CellCounts {
    pub(crate) before: usize,
    pub(crate) retired: usize,
    pub(crate) relevelled_out: usize,
    pub(crate) relevelled_in: usize,
    pub(crate) added: usize,
    pub(crate) after: usize,
}

/// Everything a refresh changed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Changes {
    pub(crate) attempts: usize,
    pub(crate) agents: BTreeSet<String>,
    pub(crate) tasks_attempted: usize,
    pub(crate) retired: Vec<TaskChange>,
    pub(crate) frontier_hard: Vec<TaskChange>,
    pub(crate) relevelled: Vec<TaskChange>,
    pub(crate) added: Vec<TaskChange>,
    pub(crate) cells: BTreeMap<(Family, Level), CellCounts>,
    pub(crate) shortfall: Vec<Shortfall>,
}

/// A refresh read and decided, not yet refilled or written.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) parent: Parent,
    pub(crate) version: String,
    pub(crate) seed: u64,
    pub(crate) results_sha256: String,
    /// Parent's active tasks with their decision and stats, in parent order.
    pub(crate) decisions: Vec<(Decision, Stats)>,
    /// Tasks wanted per (family, level) to get back to the parent's counts.
    pub(crate) deficits: BTreeMap<(Family, Level), usize>,
    pub(crate) changes: Changes,
}

/// What a refresh wrote.
#[derive(Debug, Clone)]
pub(crate) struct RefreshReport {
    pub(crate) version_dir: PathBuf,
    pub(crate) write: WriteResult,
    pub(crate) manifest: Manifest,
    pub(crate) changes: Changes,
}
