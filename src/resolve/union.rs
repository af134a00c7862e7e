//! `union`: keeps both sides of every hunk, in one order or the other. The task records
//! both orders under `validation.baselines.union`; the rung passes if either does.

use super::{Hunk, Resolver};

/// Keeps both sides, ours first.
pub struct UnionOursFirst;
/// Keeps both sides, theirs first.
pub struct UnionTheirsFirst;

impl Resolver for UnionOursFirst {
    fn name(&self) -> &'static str {
        "union-ours-first"
    }
    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        Some(format!("{}{}", hunk.ours, hunk.theirs))
    }
}

impl Resolver for UnionTheirsFirst {
    fn name(&self) -> &'static str {
        "union-theirs-first"
    }
    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        Some(format!("{}{}", hunk.theirs, hunk.ours))
    }
}
