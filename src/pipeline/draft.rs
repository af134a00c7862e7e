//! A kept candidate: its task files (bundles and records, the grader's check included),
//! id, near-duplicate fingerprint and what selection decides on.

use crate::bundle::record::TaskFiles;
use crate::bundle::task::ConflictKind;
use crate::difficulty::Level;
use crate::forge::Family;

/// A kept candidate, bundled and checked, not yet selected.
pub(crate) struct Draft {
    pub(super) id: String,
    pub(super) fingerprint: String,
    pub(super) substrate: usize,
    pub(super) family: Family,
    pub(super) level: Level,
    pub(super) conflict_kind: ConflictKind,
    /// The intents its sides make ([`crate::bundle::solution::Intents::keys`]).
    pub(super) intents: Vec<String>,
    pub(super) files: TaskFiles,
}
