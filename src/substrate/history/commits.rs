//! The single-parent commits of a git substrate's history that a commit-replay task
//! can be made from: a commit C with parent P that changes source files together with
//! tests, within a size budget, is a *gold patch* candidate ([`GoldPatch`]). Whether its
//! tests really fail at P and pass at C is for the test runs to say.

use anyhow::Result;
use git2::{Delta, DiffOptions, Repository};

use super::real::{message_of, RealChange};
use super::skip::Skip;
use crate::snapshot::is_test_file;
use crate::substrate::SubstrateConfig;

/// Most lines a commit may add and delete together (its diff, every file).
pub(crate) const MAX_CHANGED_LINES: usize = 400;
/// Most files a commit may change.
pub(crate) const MAX_CHANGED_FILES: usize = 16;

/// A commit whose change can be replayed as one side of a task.
#[derive(Debug, Clone)]
pub struct GoldPatch {
    pub(crate) commit: git2::Oid,
    pub(crate) parent: git2::Oid,
    /// The commit's own message and author.
    pub(crate) change: RealChange,
}

/// The repository-relative path of a diff entry (its new side, or the old one for a
/// deletion), with `/` separators.
fn delta_path(delta: &git2::DiffDelta) -> Option<String> {
    let path = delta.new_file().path().or_else(|| delta.old_file().path())?;
    Some(path.to_string_lossy().replace('\\', "/"))
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
    let (mut sources, mut tests) = (false, false);
    for delta in diff.deltas() {
        let Some(path) = delta_path(&delta) else { continue };
        let kept = matches!(delta.status(), Delta::Added | Delta::Modified | Delta::Deleted | Delta::Renamed);
        if !kept || !path.ends_with(".py") {
            continue;
        }
        if is_test_file(&path) {
            tests = true;
        } else if config.is_mutable(&path) {
            sources = true;
        }
    }
    if !sources {
        return Ok(Err(Skip::NoSourceChange));
    }
    if !tests {
        return Ok(Err(Skip::NoTestChange));
    }
    let stats = diff.stats()?;
    let changed_lines = stats.insertions() + stats.deletions();
    if changed_lines > MAX_CHANGED_LINES || stats.files_changed() > MAX_CHANGED_FILES {
        return Ok(Err(Skip::TooLarge));
    }
    let change = RealChange::of(commit, message_of(commit));
    Ok(Ok(GoldPatch { commit: commit.id(), parent: parent.id(), change }))
}

/// One hunk of a commit's diff of a Python file: where it sits in the parent's file
/// and the lines it removes and adds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    pub(crate) path: String,
    /// The 1-based lines of the parent's file the hunk replaces, end exclusive (empty
    /// at the insertion point for a pure addition).
    pub(crate) old: std::ops::Range<usize>,
    pub(crate) removed: Vec<String>,
    pub(crate) added: Vec<String>,
}

/// The hunks of `patch`'s diff in Python files (sources and tests), in diff order.
pub fn hunks(repo: &Repository, patch: &GoldPatch) -> Result<Vec<Hunk>> {
    let (parent, commit) = (repo.find_commit(patch.parent)?, repo.find_commit(patch.commit)?);
    let mut options = DiffOptions::new();
    options.context_lines(0);
    let diff = repo.diff_tree_to_tree(Some(&parent.tree()?), Some(&commit.tree()?), Some(&mut options))?;
    let out: std::cell::RefCell<Vec<Hunk>> = Default::default();
    diff.foreach(
        &mut |_, _| true,
        None,
        Some(&mut |delta, hunk| {
            let path = delta_path(&delta).unwrap_or_default();
            if path.ends_with(".py") {
                let start = hunk.old_start() as usize + usize::from(hunk.old_lines() == 0);
                let old = start..start + hunk.old_lines() as usize;
                out.borrow_mut().push(Hunk { path, old, removed: Vec::new(), added: Vec::new() });
            }
            true
        }),
        Some(&mut |delta, _, line| {
            let path = delta_path(&delta);
            if let Some(last) = out.borrow_mut().last_mut().filter(|h| path.as_deref() == Some(h.path.as_str())) {
                let text = String::from_utf8_lossy(line.content()).trim_end().to_string();
                match line.origin() {
                    '-' => last.removed.push(text),
                    '+' => last.added.push(text),
                    _ => {}
                }
            }
            true
        }),
    )?;
    Ok(out.into_inner())
}
