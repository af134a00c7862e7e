//! `theirs`: takes the theirs side of every hunk.

use super::resolver::{Hunk, RecordKey, Resolver, Rung};

/// Takes theirs for every hunk.
pub struct TakeTheirs;

impl Resolver for TakeTheirs {
    fn name(&self) -> &'static str {
        "theirs"
    }
    fn description(&self) -> &'static str {
        "Every conflict hunk resolved by taking the theirs side."
    }
    fn rung(&self) -> Rung {
        Rung::Easy
    }
    fn record_key(&self) -> RecordKey {
        RecordKey::Own("theirs")
    }
    fn agent(&self) -> Option<&'static str> {
        Some("theirs")
    }
    fn available(&self) -> bool {
        true
    }
    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        Some(hunk.theirs.clone())
    }
}
