//! The merge commits of a git substrate's history that a merge-replay task can be made
//! from.
//!
//! A merge M is *replayable* when it has two parents, they have a merge base,
//! and re-merging them with the pipeline's git2 merge ([`crate::merge::merge`])
//! conflicts in at least one Python source file (not a test file: gold's tests are
//! restored over every tree a task judges, so a conflict only in tests solves itself).
//! Each other merge is counted by its [`Skip`] reason ([`classify_merge`]). The replay then reads base = the
//! merge base, ours = the first parent, theirs = the second, gold = M's tree (the
//! resolution its maintainer wrote).
//!
//! [`verify`] is the test check of a replayable merge: M's tests must pass, and the
//! conflicted tree, judged by M's tests, must not; the base's and the parents' verdicts
//! are recorded, not required (history is what it is). The caller gives the test run
//! (a closure: "do these files pass?"), so this stage stays free of the runner.

use anyhow::Result;
use git2::{Oid, Repository};

use super::skip::Skip;
use crate::merge::{self, ConflictedFile, MergeResult};
use crate::snapshot::{is_test_file, with_tests_of, Snapshot};
use crate::substrate::commit_files;

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
}

/// Classifies merge commit `commit`: replayable, or the reason it is skipped.
pub fn classify_merge(repo: &Repository, commit: &git2::Commit) -> Result<Result<ReplayableMerge, Skip>> {
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
    Ok(Ok(ReplayableMerge { merge: commit.id(), base, ours, theirs, summary, conflicted }))
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
