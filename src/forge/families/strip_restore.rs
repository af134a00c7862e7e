//! strip-restore: two adjacent statements P1, P2 of one block are removed to make base;
//! ours restores P1, theirs restores P2 (or the other way round, by seed); gold is the
//! original. Both sides insert at the same place, so the merge conflicts, and each side
//! alone lacks a behaviour the tests check.

use super::{mutated, MAX_PAIRS_PER_FILE};
use crate::forge::{Recipe, seeded_coin, Candidate, Family, FamilyBuilder, ForgeInput};
use crate::snapshot::Snapshot;
use crate::mutate::{Mutation, OperatorKind};

pub struct StripRestore;

impl FamilyBuilder for StripRestore {
    fn family(&self) -> Family {
        Family::StripRestore
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let gold: &'a Snapshot = &input.substrate.files;
        let seed = input.seed;
        let mut out = Vec::new();
        for (module, mutations) in input.modules.iter().zip(input.mutations) {
            let removals: Vec<_> = mutations
                .iter()
                .filter(|m| m.kind == OperatorKind::Remove && m.replacement.is_empty())
                .collect();
            let mut pairs = 0;
            for first in &removals {
                // The second statement starts exactly where the first one's lines end.
                for second in removals.iter().filter(|m| m.start == first.end && m.function == first.function) {
                    pairs += 1;
                    if pairs > MAX_PAIRS_PER_FILE {
                        break;
                    }
                    let key = format!("strip-restore|{}|{}", first.key(), second.key());
                    let first: &'a Mutation = first;
                    let second: &'a Mutation = second;
                    out.push(Recipe {
                        key: key.clone(),
                        build: Box::new(move || {
                            let (Some(base), Some(without_second), Some(without_first)) = (
                                mutated(gold, module, &[first, second]),
                                mutated(gold, module, &[second]),
                                mutated(gold, module, &[first]),
                            ) else {
                                return None;
                            };
                            let (ours, theirs) = if seeded_coin(seed, &key) {
                                (without_second, without_first)
                            } else {
                                (without_first, without_second)
                            };
                            Some(Candidate {
                                family: Family::StripRestore,
                                summary: format!(
                                    "{}: both sides restore a statement at line {} ({} / {})",
                                    module.path, first.line, first.description, second.description
                                ),
                                key: key.clone(),
                                base,
                                ours,
                                theirs,
                                gold: gold.clone(),
                                mutations: vec![(*first).clone(), (*second).clone()],
                            })
                        }),
                    });
                }
            }
        }
        out
    }
}
