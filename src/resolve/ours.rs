//! `ours`: takes the ours side of every hunk.

use super::{Hunk, Resolver};

/// Takes ours for every hunk.
pub struct TakeOurs;

impl Resolver for TakeOurs {
    fn name(&self) -> &'static str {
        "ours"
    }
    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        Some(hunk.ours.clone())
    }
}
