//! `ours`: takes the ours side of every hunk.

use super::resolver::{Hunk, RecordKey, Resolver, Rung};

/// Takes ours for every hunk.
pub(crate) struct TakeOurs;

impl Resolver for TakeOurs {
    fn name(&self) -> &'static str {
        "ours"
    }
    fn description(&self) -> &'static str {
        "Every conflict hunk resolved by taking the ours side."
    }
    fn rung(&self) -> Rung {
        Rung::Easy
    }
    fn record_key(&self) -> RecordKey {
        RecordKey::Own("ours")
    }
    fn agent(&self) -> Option<&'static str> {
        Some("ours")
    }
    fn available(&self) -> bool {
        true
    }
    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        Some(hunk.ours.clone())
    }
}
