//! The family catalogue: one family a file, listed once in [`catalogue!`]'s invocation
//! below, which declares the module and makes the [`Family`] enum (serde, strum and clap
//! names are the kebab-case variant), `Family::ALL` in catalogue order and
//! `Family::builder`, an exhaustive match: a family cannot lack a builder.

use super::FamilyBuilder;
use crate::mutate::{self, Mutation};
use crate::python::PyModule;
use crate::snapshot::{with_file, Snapshot};

/// `Variant => module::Builder`, one line a family, in catalogue order.
macro_rules! catalogue {
    ($($variant:ident => $module:ident :: $builder:ident,)*) => {
        $(mod $module;)*

        /// The families, in catalogue order.
        #[derive(
            Debug,
            Clone,
            Copy,
            PartialEq,
            Eq,
            PartialOrd,
            Ord,
            Hash,
            serde::Serialize,
            serde::Deserialize,
            strum::IntoStaticStr,
            strum::EnumString,
            clap::ValueEnum,
            schemars::JsonSchema,
        )]
        #[serde(rename_all = "kebab-case")]
        #[strum(serialize_all = "kebab-case")]
        pub enum Family {
            $($variant,)*
        }

        impl Family {
            pub const ALL: [Family; [$(stringify!($variant)),*].len()] = [$(Family::$variant),*];

            /// The family's catalogue entry.
            pub fn builder(self) -> &'static dyn FamilyBuilder {
                match self {
                    $(Family::$variant => &$module::$builder,)*
                }
            }
        }
    };
}

catalogue! {
    StripRestore => strip_restore::StripRestore,
    DivergentEdit => divergent_edit::DivergentEdit,
    ComposeEdits => compose_edits::ComposeEdits,
    SignatureCallsite => signature_callsite::SignatureCallsite,
}

/// `gold` with `mutations` (all in `module`'s file) applied; `None` if the result does not parse.
fn mutated(gold: &Snapshot, module: &PyModule, mutations: &[&Mutation]) -> Option<Snapshot> {
    let text = mutate::apply(&module.text, &module.path, mutations)?;
    Some(with_file(gold, &module.path, &text))
}

/// Most pairs a family looks at per file before the seeded ordering: keeps enumeration
/// linear on large files.
const MAX_PAIRS_PER_FILE: usize = 4000;

/// The pairs `(first, second)` of `mutations` that `is_pair` accepts (given the two and
/// their positions), first by first's position then second's, at most
/// [`MAX_PAIRS_PER_FILE`] of them.
fn capped_pairs<'m>(
    mutations: &[&'m Mutation],
    is_pair: impl Fn((usize, &Mutation), (usize, &Mutation)) -> bool,
) -> Vec<(&'m Mutation, &'m Mutation)> {
    let mut pairs = Vec::new();
    for (i, first) in mutations.iter().enumerate() {
        for (j, second) in mutations.iter().enumerate() {
            if pairs.len() == MAX_PAIRS_PER_FILE {
                return pairs;
            }
            if is_pair((i, first), (j, second)) {
                pairs.push((*first, *second));
            }
        }
    }
    pairs
}

/// A two-mutation candidate: base has both mutations, each side undoes one of them
/// (`ours` undoes `first` unless `swap_sides`), and gold is the substrate as it is.
struct PairRecipe<'a> {
    family: super::Family,
    key: String,
    summary: String,
    gold: &'a Snapshot,
    module: &'a PyModule,
    first: &'a Mutation,
    second: &'a Mutation,
    swap_sides: bool,
}

impl<'a> PairRecipe<'a> {
    fn into_recipe(self) -> super::Recipe<'a> {
        super::Recipe {
            key: self.key.clone(),
            build: Box::new(move || {
                let PairRecipe { family, key, summary, gold, module, first, second, swap_sides } = &self;
                let base = mutated(gold, module, &[first, second])?;
                let first_undone = mutated(gold, module, &[second])?;
                let second_undone = mutated(gold, module, &[first])?;
                // `first_undone` is the change that undoes `first`.
                let first_intent = super::Intent::undoing(&[first]);
                let second_intent = super::Intent::undoing(&[second]);
                let ((ours, ours_intent), (theirs, theirs_intent)) = if *swap_sides {
                    ((second_undone, second_intent), (first_undone, first_intent))
                } else {
                    ((first_undone, first_intent), (second_undone, second_intent))
                };
                Some(super::Candidate {
                    family: *family,
                    summary: summary.clone(),
                    key: key.clone(),
                    base,
                    ours,
                    theirs,
                    gold: (*gold).clone(),
                    mutations: vec![(*first).clone(), (*second).clone()],
                    ours_intent,
                    theirs_intent,
                })
            }),
        }
    }
}
