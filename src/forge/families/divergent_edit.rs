//! divergent-edit: base carries a wrong value at one node; one side fixes it (back to
//! the original), the other changes the same node to another plausible wrong value.
//! Both edit the same bytes, so the merge conflicts; exactly one side passes the tests.

use std::collections::BTreeMap;

use super::pairs::mutated;
use crate::forge::messages;
use crate::forge::proposal::{FamilyBuilder, ForgeInput, Intent, Proposal, Recipe, SideRule, seeded_coin};
use crate::mutate::{Mutation, OperatorKind};
use crate::snapshot::Snapshot;

pub(crate) struct DivergentEdit;

impl FamilyBuilder for DivergentEdit {
    fn side_rule(&self) -> SideRule {
        SideRule::ExactlyOnePasses
    }


    fn description(&self) -> &'static str {
        "one side restores a mutated node, the other writes a different wrong value at the same place. Exactly one side passes; the tests decide."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let gold: &'a Snapshot = &input.substrate.files;
        let seed = input.seed;
        let mut out = Vec::new();
        for (module, mutations) in input.modules.iter().zip(input.mutations) {
            let mut by_node: BTreeMap<(usize, usize), Vec<&Mutation>> = BTreeMap::new();
            for m in mutations.iter().filter(|m| m.kind == OperatorKind::Alter && m.function.is_some()) {
                by_node.entry((m.start, m.end)).or_default().push(m);
            }
            for alternatives in by_node.values().filter(|a| a.len() >= 2) {
                for bug in alternatives {
                    for wrong in alternatives.iter().filter(|w| w.replacement != bug.replacement) {
                        let key = format!("divergent-edit|{}|{}", bug.key(), wrong.key());
                        let bug: &'a Mutation = bug;
                        let wrong: &'a Mutation = wrong;
                        out.push(Recipe {
                            key: key.clone(),
                            kinds: Vec::new(),
                            build: Box::new(move || {
                                let (Some(base), Some(wrong_side)) =
                                    (mutated(gold, module, &[bug]), mutated(gold, module, &[wrong]))
                                else {
                                    return None;
                                };
                                let fix = Intent::undoing(&[bug]);
                                let other =
                                    Intent::one_commit(messages::replace(bug, wrong), vec![(*wrong).clone()]);
                                let ((ours, ours_intent), (theirs, theirs_intent)) = if seeded_coin(seed, &key) {
                                    ((gold.clone(), fix), (wrong_side, other))
                                } else {
                                    ((wrong_side, other), (gold.clone(), fix))
                                };
                                Some(Proposal {
                                    summary: format!(
                                        "{}:{}: base has {}; one side restores the original, the other makes it {}",
                                        module.path, bug.line, bug.description, wrong.replacement
                                    ),
                                    key: key.clone(),
                                    base,
                                    ours,
                                    theirs,
                                    gold: gold.clone(),
                                    mutations: vec![(*bug).clone(), (*wrong).clone()],
                                    ours_intent,
                                    theirs_intent,
                                    origin: None,
                                    interactions: Vec::new(),
                                })
                            }),
                        });
                    }
                }
            }
        }
        out
    }
}
