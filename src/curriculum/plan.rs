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
pub struct RefreshOptions {
    /// A version folder (with `manifest.json`), or a dataset folder (its highest version).
    pub dataset: PathBuf,
    pub results: PathBuf,
    /// Output root: the version goes to `OUT/<dataset>/<next version>/`.
    pub out: PathBuf,
    /// Test-outcome cache for refills (default `OUT/.mergeforge-cache`).
    pub cache_dir: Option<PathBuf>,
    /// Seed for refills (default: the parent's seed + 1).
    pub seed: Option<u64>,
    pub jobs: usize,
    pub progress: bool,
    /// The canonical command line recorded in the manifest.
    pub command: Vec<String>,
}

/// A stored task: its records and files, checked against the manifest.
pub type StoredTask = TaskFiles;

/// The parent version, read and checked.
#[derive(Debug, Clone)]
pub struct Parent {
    pub dir: PathBuf,
    pub manifest: Manifest,
    pub manifest_sha256: String,
    pub active: Vec<StoredTask>,
    pub retired: Vec<StoredTask>,
    pub changelog: Option<String>,
}

/// A task whose standing changed.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskChange {
    pub id: String,
    pub family: Family,
    pub from: Level,
    pub to: Level,
    pub successes: usize,
    pub attempts: usize,
}

/// Counts of one (family, level) cell.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CellCounts {
    pub before: usize,
    pub retired: usize,
    pub relevelled_out: usize,
    pub relevelled_in: usize,
    pub added: usize,
    pub after: usize,
}

/// Everything a refresh changed.
#[derive(Debug, Clone, Default)]
pub struct Changes {
    pub attempts: usize,
    pub agents: BTreeSet<String>,
    pub tasks_attempted: usize,
    pub retired: Vec<TaskChange>,
    pub frontier_hard: Vec<TaskChange>,
    pub relevelled: Vec<TaskChange>,
    pub added: Vec<TaskChange>,
    pub cells: BTreeMap<(Family, Level), CellCounts>,
    pub shortfall: Vec<Shortfall>,
}

/// A refresh read and decided, not yet refilled or written.
#[derive(Debug, Clone)]
pub struct Plan {
    pub parent: Parent,
    pub version: String,
    pub seed: u64,
    pub results_sha256: String,
    /// Parent's active tasks with their decision and stats, in parent order.
    pub decisions: Vec<(Decision, Stats)>,
    /// Tasks wanted per (family, level) to get back to the parent's counts.
    pub deficits: BTreeMap<(Family, Level), usize>,
    pub changes: Changes,
}

/// What a refresh wrote.
#[derive(Debug, Clone)]
pub struct RefreshReport {
    pub version_dir: PathBuf,
    pub write: WriteResult,
    pub manifest: Manifest,
    pub changes: Changes,
}
