//! Baseline resolvers: naive ways to resolve a conflicted file, used to level tasks.
//!
//! Each resolver is one small type behind [`Resolver`], listed once in [`ALL`]. A
//! resolver turns a conflicted file's text into a resolved text hunk by hunk; it never
//! sees tests or families.

use std::sync::Arc;

use crate::merge::markers::{self, Segment};
use crate::snapshot::Snapshot;

/// A way to resolve every conflict hunk of a file.
pub trait Resolver: Sync + Send {
    /// Name recorded under `validation.baselines`.
    fn name(&self) -> &'static str;
    /// The resolved text of one hunk.
    fn resolve_hunk(&self, ours: &str, base: &str, theirs: &str) -> String;
}

/// Takes ours for every hunk.
pub struct TakeOurs;
/// Takes theirs for every hunk.
pub struct TakeTheirs;
/// Keeps both sides, ours first.
pub struct UnionOursFirst;
/// Keeps both sides, theirs first.
pub struct UnionTheirsFirst;

impl Resolver for TakeOurs {
    fn name(&self) -> &'static str {
        "ours"
    }
    fn resolve_hunk(&self, ours: &str, _: &str, _: &str) -> String {
        ours.to_string()
    }
}

impl Resolver for TakeTheirs {
    fn name(&self) -> &'static str {
        "theirs"
    }
    fn resolve_hunk(&self, _: &str, _: &str, theirs: &str) -> String {
        theirs.to_string()
    }
}

impl Resolver for UnionOursFirst {
    fn name(&self) -> &'static str {
        "union-ours-first"
    }
    fn resolve_hunk(&self, ours: &str, _: &str, theirs: &str) -> String {
        format!("{ours}{theirs}")
    }
}

impl Resolver for UnionTheirsFirst {
    fn name(&self) -> &'static str {
        "union-theirs-first"
    }
    fn resolve_hunk(&self, ours: &str, _: &str, theirs: &str) -> String {
        format!("{theirs}{ours}")
    }
}

/// Every baseline resolver, in ladder order.
pub static ALL: &[&dyn Resolver] = &[&TakeOurs, &TakeTheirs, &UnionOursFirst, &UnionTheirsFirst];

/// Resolves one file's text.
pub fn resolve_text(resolver: &dyn Resolver, text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for segment in markers::parse(text) {
        match segment {
            Segment::Clean(clean) => out.push_str(&clean),
            Segment::Conflict { ours, base, theirs } => out.push_str(&resolver.resolve_hunk(&ours, &base, &theirs)),
        }
    }
    out
}

/// Resolves every listed conflicted file of `tree`.
pub fn resolve_tree(resolver: &dyn Resolver, tree: &Snapshot, conflicted_paths: &[String]) -> Snapshot {
    let mut out = tree.clone();
    for path in conflicted_paths {
        if let Some(text) = crate::snapshot::text_of(tree, path) {
            let resolved = resolve_text(resolver, text);
            out.insert(path.clone(), Arc::from(resolved.as_bytes()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "a\n<<<<<<< ours\nx\n||||||| base\ny\n=======\nz\n>>>>>>> theirs\nb\n";

    #[test]
    fn ladder_resolutions() {
        assert_eq!(resolve_text(&TakeOurs, TEXT), "a\nx\nb\n");
        assert_eq!(resolve_text(&TakeTheirs, TEXT), "a\nz\nb\n");
        assert_eq!(resolve_text(&UnionOursFirst, TEXT), "a\nx\nz\nb\n");
        assert_eq!(resolve_text(&UnionTheirsFirst, TEXT), "a\nz\nx\nb\n");
    }
}
