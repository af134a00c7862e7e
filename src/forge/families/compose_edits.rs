//! compose-edits: two mutations in one statement (or on adjacent lines of one function)
//! make base; ours undoes the first, theirs the second; gold is the original. Neither
//! side, nor both sides' lines concatenated, passes: only a true combination does.

use super::{mutated, MAX_PAIRS_PER_FILE};
use crate::forge::{Recipe, Candidate, Family, FamilyBuilder, ForgeInput};
use crate::snapshot::Snapshot;
use crate::mutate::{Mutation, OperatorKind};

pub struct ComposeEdits;

impl FamilyBuilder for ComposeEdits {
    fn family(&self) -> Family {
        Family::ComposeEdits
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let gold: &'a Snapshot = &input.substrate.files;
        let mut out = Vec::new();
        for (module, mutations) in input.modules.iter().zip(input.mutations) {
            let alters: Vec<_> = mutations
                .iter()
                .filter(|m| m.kind == OperatorKind::Alter && m.function.is_some())
                .collect();
            let mut pairs = 0;
            for (i, first) in alters.iter().enumerate() {
                for second in &alters[i + 1..] {
                    if second.line > first.line + 1 {
                        break;
                    }
                    if first.overlaps(second) || first.function != second.function {
                        continue;
                    }
                    pairs += 1;
                    if pairs > MAX_PAIRS_PER_FILE {
                        break;
                    }
                    let key = format!("compose-edits|{}|{}", first.key(), second.key());
                    let first: &'a Mutation = first;
                    let second: &'a Mutation = second;
                    out.push(Recipe {
                        key: key.clone(),
                        build: Box::new(move || {
                            let (Some(base), Some(ours), Some(theirs)) = (
                                mutated(gold, module, &[first, second]),
                                mutated(gold, module, &[second]),
                                mutated(gold, module, &[first]),
                            ) else {
                                return None;
                            };
                            Some(Candidate {
                                family: Family::ComposeEdits,
                                summary: format!(
                                    "{}:{}: base has {} and {}; each side fixes one",
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
