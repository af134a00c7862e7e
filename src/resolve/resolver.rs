//! The [`Resolver`] trait every baseline resolver implements, what a resolver makes of a
//! file ([`FileResolution`]), its place on the ladder ([`Rung`], [`RecordKey`]), and the hunk
//! plumbing resolvers share: splitting a conflicted file, resolving it hunk by hunk,
//! recovering its three versions, resolving a whole tree.
//!
//! Resolvers (the sibling files) depend on this file; the catalogue in `mod.rs` depends on
//! them: no file here imports back.

use std::sync::Arc;

use crate::merge::markers::{BASE_MARKER, OURS_MARKER, SPLIT_MARKER, THEIRS_MARKER};
use crate::snapshot::Snapshot;

/// What a resolver made of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileResolution {
    /// The file's new text; unresolved hunks keep their markers.
    pub text: String,
    /// Hunks left with markers.
    pub unresolved: usize,
}

impl FileResolution {
    /// The conflicted text unchanged: nothing resolved.
    pub(crate) fn unresolved(conflicted: &str) -> Self {
        let unresolved = segments(conflicted).iter().filter(|s| s.hunk.is_some()).count();
        FileResolution { text: conflicted.to_string(), unresolved }
    }
}

/// The rung a resolver stands on: the level a task gets when this resolver is the first
/// that solves it. No resolver makes a task hard: hard is "none of them".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rung {
    /// Takes one side (`ours`, `theirs`).
    Easy,
    /// Combines the sides mechanically.
    Medium,
}

/// Where a resolver's outcome is recorded under `validation.baselines`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordKey {
    /// A key of its own: `"rule": {outcome}`.
    Own(&'static str),
    /// A member of a key several resolvers share, which passes if any member passes:
    /// `"union": {"passed": …, "ours_first": {outcome}, "theirs_first": {outcome}}`.
    Shared { key: &'static str, member: &'static str },
}

impl RecordKey {
    /// The key under `validation.baselines`.
    pub(crate) fn key(self) -> &'static str {
        match self {
            RecordKey::Own(key) | RecordKey::Shared { key, .. } => key,
        }
    }

    /// How the demo page names the resolver: `rule`, `union (ours first)`.
    pub(crate) fn label(self) -> String {
        match self {
            RecordKey::Own(key) => key.to_string(),
            RecordKey::Shared { key, member } => format!("{key} ({})", member.replace('_', " ")),
        }
    }
}

/// A way to resolve the conflicts of a file: one small type in its own file, listed once
/// in [`crate::resolve::ALL`]. The items without a default are its catalogue metadata; the ladder
/// ([`crate::validate::Baselines`]), the level, the record, the demo page and the eval
/// agents are all read from them.
pub trait Resolver: Sync + Send {
    /// The resolver's name (`union-ours-first`).
    fn name(&self) -> &'static str;

    /// One sentence on what its result is (the record's schema, the demo page).
    fn description(&self) -> &'static str;

    /// The level a task gets when this is the first resolver that solves it.
    fn rung(&self) -> Rung;

    /// Where its outcome is recorded under `validation.baselines`.
    fn record_key(&self) -> RecordKey;

    /// The name `mergeforge eval --agent` plays it under, if it is an eval agent.
    fn agent(&self) -> Option<&'static str>;

    /// Whether it can run on this machine (an external tool may be missing). An
    /// unavailable resolver is recorded as `{"available": false}`, never skipped.
    fn available(&self) -> bool;

    /// The resolution of one hunk, `None` when this resolver has no answer for it.
    /// Hunk-by-hunk resolvers implement this and keep the default [`Resolver::resolve_file`].
    fn resolve_hunk(&self, _hunk: &Hunk) -> Option<String> {
        None
    }

    /// Resolves a whole conflicted file (`path` is repository-relative, for resolvers
    /// that care about the language). Giving up on a hunk is an answer (the hunk keeps
    /// its markers); `Err` means the resolver itself failed — crashed, hung past its time
    /// limit, or printed something unparseable — so its verdict on the task is unknown.
    fn resolve_file(&self, _path: &str, conflicted: &str) -> Result<FileResolution, ResolverFailure> {
        Ok(resolve_hunks(conflicted, |hunk| self.resolve_hunk(hunk)))
    }

    /// Resolves a whole merge: the three trees and what git made of them, to a merged
    /// tree in which edits outside the conflicted files are allowed. The default
    /// resolves each conflicted file with [`Resolver::resolve_file`]; tree-level
    /// resolvers (the refactoring-aware rung) override it.
    fn resolve_tree(&self, merge: &TreeMerge) -> Result<TreeResolution, ResolverFailure> {
        let mut tree = merge.conflicted.clone();
        let mut unresolved = 0;
        for path in merge.conflicted_paths {
            if let Some(text) = crate::snapshot::text_of(merge.conflicted, path) {
                let resolution =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.resolve_file(path, text)))
                        .unwrap_or_else(|panic| Err(panicked(self.name(), path, panic)))?;
                unresolved += resolution.unresolved;
                tree.insert(path.clone(), Arc::from(resolution.text.as_bytes()));
            }
        }
        Ok(TreeResolution { tree, unresolved, notes: Vec::new() })
    }
}

/// A merge as a tree-level resolver sees it: base, ours and theirs, and the tree git's
/// merge left (clean files merged, conflicted files with diff3 markers).
#[derive(Debug, Clone, Copy)]
pub struct TreeMerge<'a> {
    pub base: &'a Snapshot,
    pub ours: &'a Snapshot,
    pub theirs: &'a Snapshot,
    /// Git's merge: clean files merged, conflicted files as diff3 text.
    pub conflicted: &'a Snapshot,
    /// The files of `conflicted` that hold markers.
    pub conflicted_paths: &'a [String],
}

/// What a resolver made of a whole merge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeResolution {
    /// The merged tree; hunks left unresolved keep their markers.
    pub tree: Snapshot,
    /// Hunks left with markers (a resolver that gives up on the whole merge counts every
    /// hunk of the conflicted tree).
    pub unresolved: usize,
    /// Why the resolver gave up, one line each (a tree-level resolver's refusals).
    pub notes: Vec<String>,
}

/// A resolver that failed to run on a file: its rung's verdict is unknown, so the task's
/// level is too (the candidate is dropped as `ladder-incomplete`, never called hard).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("resolver `{resolver}` failed on {path}: {reason}")]
pub struct ResolverFailure {
    pub(crate) resolver: &'static str,
    pub(crate) path: String,
    pub(crate) reason: String,
}
pub use crate::merge::markers::{Hunk, RawSegment};

/// Splits a conflicted file into clean text and conflict blocks, keeping each block's
/// raw text (see [`crate::merge::markers::raw_segments`]).
pub fn segments(text: &str) -> Vec<RawSegment> {
    crate::merge::markers::raw_segments(text)
}

/// Resolves hunk by hunk with `resolve`; hunks it declines keep their raw text.
pub fn resolve_hunks(text: &str, mut resolve: impl FnMut(&Hunk) -> Option<String>) -> FileResolution {
    let mut out = String::with_capacity(text.len());
    let mut unresolved = 0;
    for segment in segments(text) {
        match segment.hunk.as_ref().map(&mut resolve) {
            Some(Some(resolved)) => out.push_str(&resolved),
            Some(None) => {
                unresolved += 1;
                out.push_str(&segment.raw);
            }
            None => out.push_str(&segment.raw),
        }
    }
    FileResolution { text: out, unresolved }
}

/// The three whole-file versions a conflicted file stands for: the clean text with each
/// hunk replaced by its base, ours or theirs side. `None` if the file has no conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versions {
    pub(crate) base: String,
    pub(crate) ours: String,
    pub(crate) theirs: String,
}

pub fn versions(conflicted: &str) -> Option<Versions> {
    let mut v = Versions { base: String::new(), ours: String::new(), theirs: String::new() };
    let mut any = false;
    for segment in segments(conflicted) {
        match &segment.hunk {
            Some(h) => {
                any = true;
                v.base.push_str(&h.base);
                v.ours.push_str(&h.ours);
                v.theirs.push_str(&h.theirs);
            }
            None => {
                v.base.push_str(&segment.raw);
                v.ours.push_str(&segment.raw);
                v.theirs.push_str(&segment.raw);
            }
        }
    }
    any.then_some(v)
}

/// A diff3 conflict block with mergeforge's labels, as the merge stage writes it.
pub fn render_conflict(hunk: &Hunk) -> String {
    format!("{OURS_MARKER}\n{}{BASE_MARKER}\n{}{SPLIT_MARKER}\n{}{THEIRS_MARKER}\n", hunk.ours, hunk.base, hunk.theirs)
}

/// Resolves the text of one conflicted Python file (hunks the resolver cannot resolve
/// keep their markers; a resolver that fails leaves the text as it was).
pub fn resolve_text(resolver: &dyn Resolver, text: &str) -> String {
    resolve_file_guarded(resolver, "file.py", text).map_or_else(|_| text.to_string(), |r| r.text)
}

/// [`Resolver::resolve_file`] with a panic turned into a [`ResolverFailure`].
pub fn resolve_file_guarded(
    resolver: &dyn Resolver,
    path: &str,
    conflicted: &str,
) -> Result<FileResolution, ResolverFailure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| resolver.resolve_file(path, conflicted)))
        .unwrap_or_else(|panic| Err(panicked(resolver.name(), path, panic)))
}

/// [`Resolver::resolve_tree`] with a panic turned into a [`ResolverFailure`]: the
/// ladder's one entry point for a whole task.
pub fn resolve_tree(resolver: &dyn Resolver, merge: &TreeMerge) -> Result<TreeResolution, ResolverFailure> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| resolver.resolve_tree(merge)))
        .unwrap_or_else(|panic| Err(panicked(resolver.name(), "(tree)", panic)))
}

/// A resolver's panic as a [`ResolverFailure`].
fn panicked(resolver: &'static str, path: &str, panic: Box<dyn std::any::Any + Send>) -> ResolverFailure {
    let reason = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("panicked");
    ResolverFailure { resolver, path: path.to_string(), reason: format!("panicked: {reason}") }
}

/// Three-way merge of an opaque text: equal sides, or one side unchanged.
pub(crate) fn merge_text(base: &str, ours: &str, theirs: &str) -> Option<String> {
    if ours == theirs || theirs == base {
        Some(ours.to_string())
    } else if ours == base {
        Some(theirs.to_string())
    } else {
        None
    }
}

/// The lines of a text with trailing whitespace removed (for comparisons).
pub(crate) fn trimmed_lines(text: &str) -> Vec<&str> {
    text.lines().map(str::trim_end).collect()
}
