//! What the pair families (strip-restore, compose-edits) share: a two-mutation recipe,
//! the capped enumeration of mutation pairs, and a snapshot with mutations applied.

use crate::forge::proposal::{Intent, Proposal, Recipe};
use crate::mutate::{self, Mutation};
use crate::python::PyModule;
use crate::snapshot::{with_file, Snapshot};

/// `gold` with `mutations` (all in `module`'s file) applied; `None` if the result does not parse.
pub(super) fn mutated(gold: &Snapshot, module: &PyModule, mutations: &[&Mutation]) -> Option<Snapshot> {
    let text = mutate::apply(&module.text, &module.path, mutations)?;
    Some(with_file(gold, &module.path, &text))
}

/// Most pairs a family looks at per file before the seeded ordering: keeps enumeration
/// linear on large files.
const MAX_PAIRS_PER_FILE: usize = 4000;

/// The pairs `(first, second)` of `mutations` that `is_pair` accepts (given the two and
/// their positions), first by first's position then second's, at most
/// [`MAX_PAIRS_PER_FILE`] of them.
pub(super) fn capped_pairs<'m>(
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
pub(super) struct PairRecipe<'a> {
    pub(super) key: String,
    pub(super) summary: String,
    pub(super) gold: &'a Snapshot,
    pub(super) module: &'a PyModule,
    pub(super) first: &'a Mutation,
    pub(super) second: &'a Mutation,
    pub(super) swap_sides: bool,
}

impl<'a> PairRecipe<'a> {
    pub(super) fn into_recipe(self) -> Recipe<'a> {
        Recipe {
            key: self.key.clone(),
            kinds: Vec::new(),
            build: Box::new(move || {
                let PairRecipe { key, summary, gold, module, first, second, swap_sides } = &self;
                let base = mutated(gold, module, &[first, second])?;
                let first_undone = mutated(gold, module, &[second])?;
                let second_undone = mutated(gold, module, &[first])?;
                // `first_undone` is the change that undoes `first`.
                let first_intent = Intent::undoing(&[first]);
                let second_intent = Intent::undoing(&[second]);
                let ((ours, ours_intent), (theirs, theirs_intent)) = if *swap_sides {
                    ((second_undone, second_intent), (first_undone, first_intent))
                } else {
                    ((first_undone, first_intent), (second_undone, second_intent))
                };
                Some(Proposal {
                    summary: summary.clone(),
                    key: key.clone(),
                    base,
                    ours,
                    theirs,
                    gold: (*gold).clone(),
                    mutations: vec![(*first).clone(), (*second).clone()],
                    ours_intent,
                    theirs_intent,
                    origin: None,
                    interactions: Vec::new(),
                })
            }),
        }
    }
}
