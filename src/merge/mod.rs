//! Merges `ours` and `theirs` in memory with git2 and produces the conflicted tree:
//! clean files merged, conflicted files as diff3 text with the labels `ours`, `base`,
//! `theirs`.
//!
//! This stage owns the conflict view of a task (which paths conflict, how many hunks,
//! how many conflicted lines). It does not run tests and does not know families.

pub(crate) mod markers;

use std::sync::Arc;

use anyhow::{Context, Result};
use git2::{MergeFileOptions, Oid, Repository};

use crate::snapshot::Snapshot;

/// One conflicted file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConflictedFile {
    pub path: String,
    pub hunks: usize,
    /// Lines between the markers (ours + base + theirs).
    pub conflicted_lines: usize,
}

/// The result of merging ours and theirs.
#[derive(Debug, Clone)]
pub enum MergeResult {
    /// No conflict: git merged every file; `tree` is the merge.
    Clean {
        tree: Snapshot,
    },
    /// A conflict git2 cannot express as text (modify/delete, binary, rename).
    Unsupported(String),
    Conflicted {
        tree: Snapshot,
        files: Vec<ConflictedFile>,
    },
}

/// Merges the commits `ours` and `theirs` of `repo` (merge base: their common ancestor).
pub fn merge(repo: &Repository, ours: Oid, theirs: Oid) -> Result<MergeResult> {
    let ours_commit = repo.find_commit(ours)?;
    let theirs_commit = repo.find_commit(theirs)?;
    let index = repo.merge_commits(&ours_commit, &theirs_commit, None).context("git2 merge_commits")?;
    let mut tree = Snapshot::new();
    for entry in index.iter() {
        // Stage 0 entries are merged cleanly; conflicted paths only have stages 1-3.
        let stage = (entry.flags >> 12) & 0x3;
        if stage != 0 {
            continue;
        }
        let path = String::from_utf8_lossy(&entry.path).into_owned();
        let blob = repo.find_blob(entry.id)?;
        tree.insert(path, Arc::from(blob.content()));
    }
    if !index.has_conflicts() {
        return Ok(MergeResult::Clean { tree });
    }
    let mut files = Vec::new();
    for conflict in index.conflicts()? {
        let conflict = conflict?;
        let (Some(our), Some(their)) = (&conflict.our, &conflict.their) else {
            return Ok(MergeResult::Unsupported("modify/delete conflict".into()));
        };
        let path = String::from_utf8_lossy(&our.path).into_owned();
        let mut options = MergeFileOptions::new();
        options.style_diff3(true).our_label("ours").their_label("theirs").ancestor_label("base");
        let merged = match &conflict.ancestor {
            Some(ancestor) => repo.merge_file_from_index(ancestor, our, their, Some(&mut options))?,
            None => {
                // add/add: no ancestor, merge against an empty base.
                let empty = git2::MergeFileInput::new();
                let mut ours_input = git2::MergeFileInput::new();
                let our_blob = repo.find_blob(our.id)?;
                ours_input.content(our_blob.content()).path(&path);
                let mut theirs_input = git2::MergeFileInput::new();
                let their_blob = repo.find_blob(their.id)?;
                theirs_input.content(their_blob.content()).path(&path);
                git2::merge_file(&empty, &ours_input, &theirs_input, Some(&mut options))?
            }
        };
        let content = merged.content().to_vec();
        let Ok(text) = std::str::from_utf8(&content) else {
            return Ok(MergeResult::Unsupported(format!("{path}: binary conflict")));
        };
        files.push(describe(&path, text));
        tree.insert(path, Arc::from(content.as_slice()));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(MergeResult::Conflicted { tree, files })
}

/// The files both sides changed from base, in path order, as conflicted files without
/// hunks: where a clean merge of the two can break (a semantic conflict).
pub(crate) fn touched_by_both(base: &Snapshot, ours: &Snapshot, theirs: &Snapshot) -> Vec<ConflictedFile> {
    crate::snapshot::paths_of(base, ours, theirs)
        .into_iter()
        .filter(|p| base.get(*p) != ours.get(*p) && base.get(*p) != theirs.get(*p))
        .map(|p| ConflictedFile { path: p.clone(), hunks: 0, conflicted_lines: 0 })
        .collect()
}

fn describe(path: &str, text: &str) -> ConflictedFile {
    let mut hunks = 0;
    let mut conflicted_lines = 0;
    for segment in markers::parse(text) {
        if let markers::Segment::Conflict { ours, base, theirs } = segment {
            hunks += 1;
            conflicted_lines += ours.lines().count() + base.lines().count() + theirs.lines().count();
        }
    }
    ConflictedFile { path: path.to_string(), hunks, conflicted_lines }
}
