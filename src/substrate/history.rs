//! History as a substrate source: the merge commits of a git substrate's history that a
//! merge-replay task can be made from (issue 17).
//!
//! [`scan_merges`] walks HEAD's history newest first and takes its last `limit` merge
//! commits. A merge M is *replayable* when it has two parents, they have a merge base,
//! and re-merging them with the pipeline's git2 merge ([`crate::merge::merge`])
//! conflicts in at least one Python source file (not a test file: gold's tests are
//! restored over every tree a task judges, so a conflict only in tests solves itself).
//! Each other merge is counted by its [`Skip`] reason. The replay then reads base = the
//! merge base, ours = the first parent, theirs = the second, gold = M's tree (the
//! resolution its maintainer wrote).
//!
//! [`verify`] is the test check of a replayable merge: M's tests must pass, and the
//! conflicted tree, judged by M's tests, must not; the base's and the parents' verdicts
//! are recorded, not required (history is what it is). The caller gives the test run
//! (a closure: "do these files pass?"), so this stage stays free of the runner.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use git2::{Oid, Repository, Sort};

use crate::merge::{self, ConflictedFile, MergeResult};
use crate::snapshot::{is_test_file, with_tests_of, Snapshot};

/// Why a merge commit of the history gives no task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, strum::IntoStaticStr, strum::EnumIter)]
#[strum(serialize_all = "kebab-case")]
pub enum Skip {
    /// More than two parents.
    Octopus,
    /// The parents share no ancestor.
    NoMergeBase,
    /// git2 re-merges the parents without a conflict.
    CleanRemerge,
    /// A conflict git2 cannot write as text (modify/delete, binary).
    UnsupportedConflict,
    /// Conflicts only in files that are not Python.
    NoPythonConflict,
    /// Conflicts in Python test files only.
    OnlyTestConflicts,
    /// The tests fail at the merge commit itself.
    TestsFailAtMerge,
    /// The conflicted tree, with the merge's tests restored over it, passes them.
    ConflictedSolves,
}

/// A merge commit whose re-merge conflicts in Python sources.
#[derive(Debug, Clone)]
pub struct ReplayableMerge {
    pub merge: Oid,
    /// The merge base of the parents.
    pub base: Oid,
    /// First parent.
    pub ours: Oid,
    /// Second parent.
    pub theirs: Oid,
    /// The first line of the merge's message.
    pub summary: String,
    /// The re-merge's conflicted tree (diff3 markers in the conflicted files).
    pub conflicted: Snapshot,
    /// Every conflicted file, Python or not, in path order.
    pub files: Vec<ConflictedFile>,
}

/// What a walk of the history found.
#[derive(Debug, Default)]
pub struct HistoryScan {
    /// Merge commits looked at.
    pub considered: usize,
    /// The replayable ones, newest first.
    pub replayable: Vec<ReplayableMerge>,
    /// The others, by reason: `(merge, reason)`, newest first.
    pub skipped: Vec<(Oid, Skip)>,
}

impl HistoryScan {
    /// How many merges each reason skipped (every reason listed, zeros included).
    pub fn skip_counts(&self) -> BTreeMap<Skip, usize> {
        use strum::IntoEnumIterator;
        let mut counts: BTreeMap<Skip, usize> = Skip::iter().map(|s| (s, 0)).collect();
        for (_, reason) in &self.skipped {
            *counts.entry(*reason).or_default() += 1;
        }
        counts
    }
}

/// The last `limit` merge commits of HEAD's history (newest first, by commit time in
/// topological order), each classified as replayable or skipped.
pub fn scan_merges(repo: &Repository, limit: usize) -> Result<HistoryScan> {
    let mut walk = repo.revwalk()?;
    walk.push_head().context("the repository has no HEAD commit")?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::TIME)?;
    let mut scan = HistoryScan::default();
    for oid in walk {
        if scan.considered == limit {
            break;
        }
        let commit = repo.find_commit(oid?)?;
        if commit.parent_count() < 2 {
            continue;
        }
        scan.considered += 1;
        match classify(repo, &commit)? {
            Ok(replayable) => scan.replayable.push(replayable),
            Err(reason) => scan.skipped.push((commit.id(), reason)),
        }
    }
    Ok(scan)
}

fn classify(repo: &Repository, commit: &git2::Commit) -> Result<Result<ReplayableMerge, Skip>> {
    if commit.parent_count() > 2 {
        return Ok(Err(Skip::Octopus));
    }
    let (ours, theirs) = (commit.parent_id(0)?, commit.parent_id(1)?);
    let Ok(base) = repo.merge_base(ours, theirs) else { return Ok(Err(Skip::NoMergeBase)) };
    let (conflicted, files) = match merge::merge(repo, ours, theirs)? {
        MergeResult::Clean { .. } => return Ok(Err(Skip::CleanRemerge)),
        MergeResult::Unsupported(_) => return Ok(Err(Skip::UnsupportedConflict)),
        MergeResult::Conflicted { tree, files } => (tree, files),
    };
    let python: Vec<&ConflictedFile> = files.iter().filter(|f| f.path.ends_with(".py")).collect();
    if python.is_empty() {
        return Ok(Err(Skip::NoPythonConflict));
    }
    if python.iter().all(|f| is_test_file(&f.path)) {
        return Ok(Err(Skip::OnlyTestConflicts));
    }
    let summary = String::from_utf8_lossy(commit.summary_bytes().unwrap_or_default()).into_owned();
    Ok(Ok(ReplayableMerge { merge: commit.id(), base, ours, theirs, summary, conflicted, files }))
}

/// Every file of commit `oid`'s tree.
pub fn commit_files(repo: &Repository, oid: Oid) -> Result<Snapshot> {
    let tree = repo.find_commit(oid)?.tree()?;
    super::tree_files(repo, &tree)
}

/// The test verdicts of a replayable merge: whether each tree passes M's tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MergeVerdicts {
    /// The merge base's own suite.
    pub base: bool,
    /// The first parent's own suite.
    pub ours: bool,
    /// The second parent's own suite.
    pub theirs: bool,
}

/// Runs the test check of `replay` with `passes` (whether a tree's tests pass): the
/// merge's tests must pass at the merge, and the conflicted tree with them restored
/// over it must fail; then the base and each parent run their own suites, recorded.
pub fn verify(
    repo: &Repository,
    replay: &ReplayableMerge,
    passes: &dyn Fn(&Snapshot) -> Result<bool>,
) -> Result<Result<MergeVerdicts, Skip>> {
    let gold = commit_files(repo, replay.merge)?;
    if !passes(&gold)? {
        return Ok(Err(Skip::TestsFailAtMerge));
    }
    if passes(&with_tests_of(&replay.conflicted, &gold))? {
        return Ok(Err(Skip::ConflictedSolves));
    }
    let own = |oid: Oid| -> Result<bool> { passes(&commit_files(repo, oid)?) };
    Ok(Ok(MergeVerdicts { base: own(replay.base)?, ours: own(replay.ours)?, theirs: own(replay.theirs)? }))
}
