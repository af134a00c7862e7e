//! A kept candidate before it is bundled: its commits, conflicted tree, validation and
//! difficulty, id and near-duplicate fingerprint.

use crate::bundle::task::ConflictKind;
use crate::difficulty::{Difficulty, Features};
use crate::forge::commits::TaskCommits;
use crate::forge::Candidate;
use crate::merge;
use crate::snapshot::Snapshot;
use crate::validate::Validation;

/// A kept candidate, before it is bundled.
pub(crate) struct Draft {
    pub(super) id: String,
    pub(super) fingerprint: String,
    pub(super) substrate: usize,
    pub(super) candidate: Candidate,
    pub(super) commits: TaskCommits,
    pub(super) conflicted: Snapshot,
    pub(super) conflicts: Vec<merge::ConflictedFile>,
    pub(super) validation: Validation,
    pub(super) difficulty: Difficulty,
    pub(super) features: Features,
    pub(super) conflict_kind: ConflictKind,
}
