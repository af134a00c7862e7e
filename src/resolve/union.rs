//! `union`: keeps both sides of every hunk, in one order or the other. The task records
//! both orders under `validation.baselines.union`; the rung passes if either does.

use super::resolver::{Hunk, RecordKey, Resolver, Rung};

/// Keeps both sides, ours first.
pub struct UnionOursFirst;
/// Keeps both sides, theirs first.
pub struct UnionTheirsFirst;

impl Resolver for UnionOursFirst {
    fn name(&self) -> &'static str {
        "union-ours-first"
    }
    fn description(&self) -> &'static str {
        "Every conflict hunk resolved by keeping both sides, ours' lines before theirs'."
    }
    fn rung(&self) -> Rung {
        Rung::Medium
    }
    fn record_key(&self) -> RecordKey {
        RecordKey::Shared { key: "union", member: "ours_first" }
    }
    fn agent(&self) -> Option<&'static str> {
        Some("union")
    }
    fn available(&self) -> bool {
        true
    }
    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        Some(format!("{}{}", hunk.ours, hunk.theirs))
    }
}

impl Resolver for UnionTheirsFirst {
    fn name(&self) -> &'static str {
        "union-theirs-first"
    }
    fn description(&self) -> &'static str {
        "Every conflict hunk resolved by keeping both sides, theirs' lines before ours'."
    }
    fn rung(&self) -> Rung {
        Rung::Medium
    }
    fn record_key(&self) -> RecordKey {
        RecordKey::Shared { key: "union", member: "theirs_first" }
    }
    fn agent(&self) -> Option<&'static str> {
        None
    }
    fn available(&self) -> bool {
        true
    }
    fn resolve_hunk(&self, hunk: &Hunk) -> Option<String> {
        Some(format!("{}{}", hunk.theirs, hunk.ours))
    }
}
