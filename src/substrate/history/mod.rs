//! History as a substrate source (`history = N`, `gen-tasks --history N`): the last N
//! commits of HEAD's history, newest first, each classified once before any test runs.
//! Merge commits are merge-replay candidates ([`merges`]), single-parent commits
//! commit-replay candidates ([`commits`]); every other commit is counted by its [`Skip`]
//! reason. [`real`] holds what a task keeps of the history (authors, messages, ids).
//!
//! With eras on, each candidate commit also gets its era (the interpreter and the
//! dependencies its tests run with, from its own metadata and date;
//! [`crate::substrate::detect::era`]); a commit without one is skipped.
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

use super::detect::era::{self, Era, Unfit};
use super::detect::interpreter::{self, Present};
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
    /// Each candidate commit's era (merges' and gold patches'), when eras are on.
    pub(crate) eras: BTreeMap<Oid, Era>,
    /// Commits whose wanted Python is not installed (they ran on another, or were
    /// skipped as [`Skip::NoInterpreter`]), by that version.
    pub(crate) not_installed: BTreeMap<(u32, u32), usize>,
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
    /// Candidate commits by the interpreter chosen for them (`3.6`; empty without eras).
    pub(crate) interpreters: BTreeMap<String, usize>,
    /// Commits by the Python they want when it is not installed (`3.5`).
    pub(crate) not_installed: BTreeMap<String, usize>,
}

impl std::ops::AddAssign<&HistoryCounts> for HistoryCounts {
    fn add_assign(&mut self, other: &HistoryCounts) {
        self.considered += other.considered;
        self.merges += other.merges;
        self.commits += other.commits;
        for (reason, n) in &other.skipped {
            *self.skipped.entry(*reason).or_default() += n;
        }
        for (version, n) in &other.interpreters {
            *self.interpreters.entry(version.clone()).or_default() += n;
        }
        for (version, n) in &other.not_installed {
            *self.not_installed.entry(version.clone()).or_default() += n;
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
            interpreters: count(self.eras.values().map(|e| (e.python.version.0, e.python.version.1))),
            not_installed: self.not_installed.iter().map(|((a, b), n)| (format!("{a}.{b}"), *n)).collect(),
        }
    }

    /// Opens the repository the commits are read from.
    pub(crate) fn open(&self) -> Result<Repository> {
        Repository::open(&self.repo).with_context(|| format!("{}: opening the history", self.repo.display()))
    }
}

/// `3.6` → how many of `versions` are 3.6.
fn count(versions: impl Iterator<Item = (u32, u32)>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for (a, b) in versions {
        *counts.entry(format!("{a}.{b}")).or_default() += 1;
    }
    counts
}

/// The last `limit` commits of HEAD's history (newest first, by commit time in
/// topological order), each classified as a merge-replay or commit-replay candidate or
/// skipped; `config` says which files are sources and which tests. With `eras` (which
/// says whether HEAD has a path), each candidate gets its era among the interpreters
/// present, or is skipped.
pub(crate) fn scan(
    repo_path: &std::path::Path,
    limit: usize,
    config: &SubstrateConfig,
    eras: Option<&dyn Fn(&str) -> bool>,
) -> Result<HistoryScan> {
    let repo = Repository::open(repo_path)
        .with_context(|| format!("{}: history needs a git repository; this is not one", repo_path.display()))?;
    let mut scan = HistoryScan { repo: repo_path.to_path_buf(), ..HistoryScan::default() };
    // Probing the interpreters runs each of them: only when eras are on.
    let present = if eras.is_some() { interpreter::present() } else { Vec::new() };
    let head = eras.map(|has| Head { config, present: &present, has });
    for oid in newest_first(&repo)?.take(limit) {
        let commit = repo.find_commit(oid?)?;
        scan.considered += 1;
        let era = |scan: &mut HistoryScan| match &head {
            Some(head) => scan.era_of(&repo, &commit, head),
            None => Ok(true),
        };
        if commit.parent_count() >= 2 {
            match classify_merge(&repo, &commit)? {
                Ok(merge) if era(&mut scan)? => scan.merges.push(merge),
                Ok(_) => {}
                Err(reason) => scan.skipped.push((commit.id(), reason)),
            }
        } else {
            match classify_commit(&repo, &commit, config)? {
                Ok(patch) if era(&mut scan)? => scan.commits.push(patch),
                Ok(_) => {}
                Err(reason) => scan.skipped.push((commit.id(), reason)),
            }
        }
    }
    Ok(scan)
}

impl HistoryScan {
    /// Records `commit`'s era, or skips it: whether it has one.
    fn era_of(&mut self, repo: &Repository, commit: &git2::Commit, head: &Head<'_>) -> Result<bool> {
        let tree = commit.tree()?;
        let files = metadata_files(repo, &tree)?;
        match era::of_commit(&files, commit.time().seconds(), head.present) {
            Ok(mut found) => {
                let in_commit = |path: &str| tree.get_path(std::path::Path::new(path.trim_end_matches('/'))).is_ok();
                found.test_command =
                    era::adapted_command(&head.config.test_command, &found.requirements, head.has, in_commit);
                if (found.python.version.0, found.python.version.1) != found.wanted {
                    *self.not_installed.entry(found.wanted).or_default() += 1;
                }
                self.eras.insert(commit.id(), found);
                Ok(true)
            }
            Err(Unfit::Python2) => {
                self.skipped.push((commit.id(), Skip::Python2));
                Ok(false)
            }
            Err(Unfit::NoInterpreter { wanted }) => {
                *self.not_installed.entry(wanted).or_default() += 1;
                self.skipped.push((commit.id(), Skip::NoInterpreter));
                Ok(false)
            }
        }
    }
}

/// What an era needs of HEAD: its configuration, the interpreters present and whether
/// it has a path (a file or folder).
struct Head<'a> {
    config: &'a SubstrateConfig,
    present: &'a [Present],
    has: &'a dyn Fn(&str) -> bool,
}

/// The files of `tree` an era reads ([`era::is_metadata_file`]).
fn metadata_files(repo: &Repository, tree: &git2::Tree) -> Result<crate::snapshot::Snapshot> {
    let mut files = crate::snapshot::Snapshot::new();
    tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
        let path = format!("{dir}{}", entry.name().unwrap_or_default());
        if entry.kind() == Some(git2::ObjectType::Tree) {
            let wanted = (dir.is_empty() && (path.starts_with("requirements") || path == ".github"))
                || path == ".github/workflows";
            return if wanted { git2::TreeWalkResult::Ok } else { git2::TreeWalkResult::Skip };
        }
        if era::is_metadata_file(&path) {
            if let Ok(blob) = repo.find_blob(entry.id()) {
                files.insert(path, std::sync::Arc::from(blob.content()));
            }
        }
        git2::TreeWalkResult::Ok
    })?;
    Ok(files)
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
