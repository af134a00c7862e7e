//! Baseline resolvers: mechanical ways to resolve a conflicted file, used to level tasks.
//!
//! Each resolver is one small type behind [`Resolver`], in its own file, listed once in
//! [`ALL`] in ladder order:
//!
//! | name | rung | record key | what it does |
//! |---|---|---|---|
//! | `ours`, `theirs` | easy | `ours`, `theirs` | take one side for every hunk |
//! | `union-ours-first`, `union-theirs-first` | medium | `union` (shared) | keep both sides of every hunk, in one order |
//! | `rule` | medium | `rule` | the classic rule-based resolver, hunk by hunk (see [`rule`]) |
//! | `structured` | medium | `structured` | a Python-aware merge of both sides' statement changes (see [`structured`]) |
//! | `mergiraf` | medium | `mergiraf` | the `mergiraf` binary, when one is on PATH (see [`mergiraf`]) |
//!
//! The rung, record key, eval agent name and availability are items of each entry
//! ([`Resolver`]); the ladder, the record, the demo page and the eval agents read them.
//!
//! A resolver turns a conflicted file's text (diff3 markers, as the merge stage writes
//! them) into a resolved text. A hunk it cannot resolve keeps its markers, so its result
//! is always a tree the tests can judge. Resolvers never see tests or families.

pub mod mergiraf;
pub mod ours;
pub mod rule;
pub mod structured;
pub mod theirs;
pub mod union;

use std::sync::Arc;

pub use mergiraf::Mergiraf;
pub use ours::TakeOurs;
pub use rule::Rule;
pub use structured::Structured;
pub use theirs::TakeTheirs;
pub use union::{UnionOursFirst, UnionTheirsFirst};

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
    pub fn unresolved(conflicted: &str) -> Self {
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
    pub fn key(self) -> &'static str {
        match self {
            RecordKey::Own(key) | RecordKey::Shared { key, .. } => key,
        }
    }

    /// How the demo page names the resolver: `rule`, `union (ours first)`.
    pub fn label(self) -> String {
        match self {
            RecordKey::Own(key) => key.to_string(),
            RecordKey::Shared { key, member } => format!("{key} ({})", member.replace('_', " ")),
        }
    }
}

/// A way to resolve the conflicts of a file: one small type in its own file, listed once
/// in [`ALL`]. The items without a default are its catalogue metadata; the ladder
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
    /// that care about the language).
    fn resolve_file(&self, _path: &str, conflicted: &str) -> FileResolution {
        resolve_hunks(conflicted, |hunk| self.resolve_hunk(hunk))
    }
}

/// Every baseline resolver, in ladder order.
pub static ALL: &[&dyn Resolver] =
    &[&TakeOurs, &TakeTheirs, &UnionOursFirst, &UnionTheirsFirst, &Rule, &Structured, &mergiraf::FROM_PATH];

/// The record keys of [`ALL`] in ladder order, each with its resolvers (one for an own
/// key, the members of a shared one).
pub fn record_keys() -> Vec<(&'static str, Vec<&'static dyn Resolver>)> {
    let mut keys: Vec<(&'static str, Vec<&'static dyn Resolver>)> = Vec::new();
    for resolver in ALL.iter().copied() {
        let key = resolver.record_key().key();
        match keys.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(resolver),
            None => keys.push((key, vec![resolver])),
        }
    }
    keys
}

/// Looks a resolver up by name.
pub fn by_name(name: &str) -> Option<&'static dyn Resolver> {
    ALL.iter().copied().find(|r| r.name() == name)
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
    pub base: String,
    pub ours: String,
    pub theirs: String,
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
/// keep their markers).
pub fn resolve_text(resolver: &dyn Resolver, text: &str) -> String {
    resolver.resolve_file("file.py", text).text
}

/// Resolves every listed conflicted file of `tree`; returns the new tree and the number
/// of hunks left unresolved.
pub fn resolve_tree(resolver: &dyn Resolver, tree: &Snapshot, conflicted_paths: &[String]) -> (Snapshot, usize) {
    let mut out = tree.clone();
    let mut unresolved = 0;
    for path in conflicted_paths {
        if let Some(text) = crate::snapshot::text_of(tree, path) {
            let resolution = resolver.resolve_file(path, text);
            unresolved += resolution.unresolved;
            out.insert(path.clone(), Arc::from(resolution.text.as_bytes()));
        }
    }
    (out, unresolved)
}

/// The lines of a text with trailing whitespace removed (for comparisons).
pub(crate) fn trimmed_lines(text: &str) -> Vec<&str> {
    text.lines().map(str::trim_end).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::merge::markers::{self, Segment};

    const TEXT: &str = "a\n<<<<<<< ours\nx\n||||||| base\ny\n=======\nz\n>>>>>>> theirs\nb\n";

    #[test]
    fn ladder_resolutions() {
        let text = |r: &dyn Resolver| r.resolve_file("f.py", TEXT).text;
        assert_eq!(text(&TakeOurs), "a\nx\nb\n");
        assert_eq!(text(&TakeTheirs), "a\nz\nb\n");
        assert_eq!(text(&UnionOursFirst), "a\nx\nz\nb\n");
        assert_eq!(text(&UnionTheirsFirst), "a\nz\nx\nb\n");
    }

    #[test]
    fn segments_agree_with_the_marker_parser_and_keep_raw_text() {
        let texts = [
            TEXT,
            "<<<<<<< ours\nx\n=======\nz\n>>>>>>> theirs\n",
            "<<<<<<< ours\nunterminated\n",
            "a\n<<<<<<< a\n<<<<<<< b\nx\n||||||| c\n=======\ny\n>>>>>>> d\n",
        ];
        for text in texts {
            let raw = segments(text);
            assert_eq!(raw.iter().map(|s| s.raw.as_str()).collect::<String>(), text);
            let parsed = markers::parse(text);
            assert_eq!(raw.len(), parsed.len(), "{text:?}");
            for (r, p) in raw.iter().zip(&parsed) {
                match (p, &r.hunk) {
                    (Segment::Clean(c), None) => assert_eq!(c, &r.raw),
                    (Segment::Conflict { ours, base, theirs }, Some(h)) => {
                        assert_eq!((ours, base, theirs), (&h.ours, &h.base, &h.theirs))
                    }
                    _ => panic!("segments differ for {text:?}"),
                }
            }
        }
    }

    #[test]
    fn unresolved_hunks_keep_their_markers() {
        let resolution = resolve_hunks(TEXT, |_| None);
        assert_eq!(resolution, FileResolution { text: TEXT.to_string(), unresolved: 1 });
        let hunk = segments(TEXT)[1].hunk.clone().unwrap();
        assert_eq!(render_conflict(&hunk), segments(TEXT)[1].raw);
    }

    #[test]
    fn versions_stand_for_each_side() {
        let v = versions(TEXT).unwrap();
        assert_eq!((v.base.as_str(), v.ours.as_str(), v.theirs.as_str()), ("a\ny\nb\n", "a\nx\nb\n", "a\nz\nb\n"));
        assert!(versions("a\n").is_none());
    }
}
