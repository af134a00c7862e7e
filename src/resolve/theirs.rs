//! `theirs`: takes the theirs side of every hunk.

use super::{Hunk, Resolver};

/// Takes theirs for every hunk.
pub struct TakeTheirs;

impl Resolver for TakeTheirs {
    fn name(&self) -> &'static str {
        "theirs"
    }
    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        Some(hunk.theirs.clone())
    }
}
