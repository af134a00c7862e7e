//! History as a substrate source (`history = N`, `gen-tasks --history N`): the last N
//! commits of HEAD's history, newest first, each classified once before any test runs.
//! Merge commits are merge-replay candidates ([`merges`]), single-parent commits
//! commit-replay candidates ([`commits`]); every other commit is counted by its [`Skip`]
//! reason. [`real`] holds what a task keeps of the history (authors, messages, ids).
//!
//! This stage reads git only: the families make tasks of what it finds, and the tests
//! decide which of them are tasks.

pub(crate) mod commits;
pub(crate) mod merges;
pub(crate) mod real;
mod skip;

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result};
use git2::{Oid, Repository, Sort};

pub use commits::{classify_commit, hunks, GoldPatch, Hunk};
pub use merges::{classify_merge, verify, MergeVerdicts, ReplayableMerge};
pub(crate) use real::{Author, RealChange, RealKind, RealOrigin};
pub use skip::Skip;

use super::SubstrateConfig;

/// What a walk of the history found.
#[derive(Debug, Default)]
pub struct HistoryScan {
    /// The repository the commits are read from.
    pub(crate) repo: PathBuf,
    /// Commits looked at (merges and single-parent commits).
    pub considered: usize,
    /// The replayable merges, newest first.
    pub merges: Vec<ReplayableMerge>,
    /// The gold-patch candidates, newest first.
    pub(crate) commits: Vec<GoldPatch>,
    /// The others, by reason: `(commit, reason)`, newest first.
    pub(crate) skipped: Vec<(Oid, Skip)>,
}

/// What a history scan found, in numbers (summed over a run's substrates).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct HistoryCounts {
    /// Commits looked at.
    pub(crate) considered: usize,
    /// Replayable merges (merge-replay candidates).
    pub(crate) merges: usize,
    /// Gold-patch candidates (commit-replay).
    pub(crate) commits: usize,
    /// The other commits by reason (every reason listed, zeros included).
    pub(crate) skipped: BTreeMap<Skip, usize>,
}

impl std::ops::AddAssign<&HistoryCounts> for HistoryCounts {
    fn add_assign(&mut self, other: &HistoryCounts) {
        self.considered += other.considered;
        self.merges += other.merges;
        self.commits += other.commits;
        for (reason, n) in &other.skipped {
            *self.skipped.entry(*reason).or_default() += n;
        }
    }
}

impl HistoryScan {
    /// How many commits each reason skipped (every reason listed, zeros included).
    pub fn skip_counts(&self) -> BTreeMap<Skip, usize> {
        use strum::IntoEnumIterator;
        let mut counts: BTreeMap<Skip, usize> = Skip::iter().map(|s| (s, 0)).collect();
        for (_, reason) in &self.skipped {
            *counts.entry(*reason).or_default() += 1;
        }
        counts
    }

    /// The scan in numbers.
    pub(crate) fn counts(&self) -> HistoryCounts {
        HistoryCounts {
            considered: self.considered,
            merges: self.merges.len(),
            commits: self.commits.len(),
            skipped: self.skip_counts(),
        }
    }

    /// Opens the repository the commits are read from.
    pub(crate) fn open(&self) -> Result<Repository> {
        Repository::open(&self.repo).with_context(|| format!("{}: opening the history", self.repo.display()))
    }
}

/// The last `limit` commits of HEAD's history (newest first, by commit time in
/// topological order), each classified as a merge-replay or commit-replay candidate or
/// skipped; `config` says which files are sources and which tests.
pub(crate) fn scan(repo_path: &std::path::Path, limit: usize, config: &SubstrateConfig) -> Result<HistoryScan> {
    let repo = Repository::open(repo_path)
        .with_context(|| format!("{}: history needs a git repository; this is not one", repo_path.display()))?;
    let mut scan = HistoryScan { repo: repo_path.to_path_buf(), ..HistoryScan::default() };
    for oid in newest_first(&repo)?.take(limit) {
        let commit = repo.find_commit(oid?)?;
        scan.considered += 1;
        if commit.parent_count() >= 2 {
            match classify_merge(&repo, &commit)? {
                Ok(merge) => scan.merges.push(merge),
                Err(reason) => scan.skipped.push((commit.id(), reason)),
            }
        } else {
            match classify_commit(&repo, &commit, config)? {
                Ok(patch) => scan.commits.push(patch),
                Err(reason) => scan.skipped.push((commit.id(), reason)),
            }
        }
    }
    Ok(scan)
}

/// The last `limit` merge commits of HEAD's history, classified as [`scan`] does
/// (single-parent commits are not looked at).
pub fn scan_merges(repo: &Repository, limit: usize) -> Result<HistoryScan> {
    let path = repo.workdir().unwrap_or_else(|| repo.path()).to_path_buf();
    let mut scan = HistoryScan { repo: path, ..HistoryScan::default() };
    for oid in newest_first(repo)? {
        if scan.considered == limit {
            break;
        }
        let commit = repo.find_commit(oid?)?;
        if commit.parent_count() < 2 {
            continue;
        }
        scan.considered += 1;
        match classify_merge(repo, &commit)? {
            Ok(merge) => scan.merges.push(merge),
            Err(reason) => scan.skipped.push((commit.id(), reason)),
        }
    }
    Ok(scan)
}

/// HEAD's history, newest first (by commit time, in topological order).
fn newest_first(repo: &Repository) -> Result<git2::Revwalk<'_>> {
    let mut walk = repo.revwalk()?;
    walk.push_head().context("the repository has no HEAD commit")?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
    Ok(walk)
}
