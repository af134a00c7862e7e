//! The single-parent commits of a git substrate's history that a commit-replay task
//! can be made from: a commit C with parent P that changes source files together with
//! tests, within a size budget, is a *gold patch* candidate ([`GoldPatch`]). Whether its
//! tests really fail at P and pass at C is for the test runs to say.

use anyhow::Result;
use git2::{Delta, DiffOptions, Repository};

use super::real::{author_of, message_of, RealChange};
use super::skip::Skip;
use crate::snapshot::is_test_file;
use crate::substrate::SubstrateConfig;

/// Most lines a commit may add and delete together (its diff, every file).
pub const MAX_CHANGED_LINES: usize = 400;
/// Most files a commit may change.
pub const MAX_CHANGED_FILES: usize = 16;

/// A commit whose change can be replayed as one side of a task.
#[derive(Debug, Clone)]
pub struct GoldPatch {
    pub commit: git2::Oid,
    pub parent: git2::Oid,
    /// The commit's own message and author.
    pub change: RealChange,
    /// The source files it changes or adds (the substrate's mutable sources), in path order.
    pub sources: Vec<String>,
    /// The test files it changes or adds, in path order.
    pub tests: Vec<String>,
    /// Lines added plus lines deleted, over every file.
    pub changed_lines: usize,
}

/// Classifies single-parent commit `commit`: a gold-patch candidate, or why not.
pub fn classify_commit(
    repo: &Repository,
    commit: &git2::Commit,
    config: &SubstrateConfig,
) -> Result<Result<GoldPatch, Skip>> {
    if commit.parent_count() == 0 {
        return Ok(Err(Skip::RootCommit));
    }
    let parent = commit.parent(0)?;
    let mut options = DiffOptions::new();
    options.ignore_submodules(true);
    let diff = repo.diff_tree_to_tree(Some(&parent.tree()?), Some(&commit.tree()?), Some(&mut options))?;
    let (mut sources, mut tests) = (Vec::new(), Vec::new());
    for delta in diff.deltas() {
        let Some(path) = delta.new_file().path().or_else(|| delta.old_file().path()) else { continue };
        let path = path.to_string_lossy().replace('\\', "/");
        let kept = matches!(delta.status(), Delta::Added | Delta::Modified | Delta::Deleted | Delta::Renamed);
        if !kept || !path.ends_with(".py") {
            continue;
        }
        if is_test_file(&path) {
            tests.push(path);
        } else if config.is_mutable(&path) {
            sources.push(path);
        }
    }
    if sources.is_empty() {
        return Ok(Err(Skip::NoSourceChange));
    }
    if tests.is_empty() {
        return Ok(Err(Skip::NoTestChange));
    }
    let stats = diff.stats()?;
    let changed_lines = stats.insertions() + stats.deletions();
    if changed_lines > MAX_CHANGED_LINES || stats.files_changed() > MAX_CHANGED_FILES {
        return Ok(Err(Skip::TooLarge));
    }
    sources.sort();
    tests.sort();
    let change = RealChange { message: message_of(commit), author: author_of(commit) };
    Ok(Ok(GoldPatch { commit: commit.id(), parent: parent.id(), change, sources, tests, changed_lines }))
}
