//! The family catalogue: one family a file, listed once in [`ALL`].

mod compose_edits;
mod divergent_edit;
mod signature_callsite;
mod strip_restore;

use super::FamilyBuilder;
use crate::mutate::{self, Mutation, PyModule};
use crate::snapshot::{with_file, Snapshot};

pub static ALL: &[&dyn FamilyBuilder] = &[
    &strip_restore::StripRestore,
    &divergent_edit::DivergentEdit,
    &compose_edits::ComposeEdits,
    &signature_callsite::SignatureCallsite,
];

/// `gold` with `mutations` (all in `module`'s file) applied; `None` if the result does not parse.
fn mutated(gold: &Snapshot, module: &PyModule, mutations: &[&Mutation]) -> Option<Snapshot> {
    let text = mutate::apply(&module.text, &module.path, mutations)?;
    Some(with_file(gold, &module.path, &text))
}

/// Most pairs a family looks at per file before the seeded ordering: keeps enumeration
/// linear on large files.
const MAX_PAIRS_PER_FILE: usize = 4000;
