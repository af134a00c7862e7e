//! strip-restore: two adjacent statements P1, P2 of one block are removed to make base;
//! ours restores P1, theirs restores P2 (or the other way round, by seed); gold is the
//! original. Both sides insert at the same place, so the merge conflicts, and each side
//! alone lacks a behaviour the tests check.

use super::pairs::{capped_pairs, PairRecipe};
use crate::forge::proposal::{FamilyBuilder, ForgeInput, Recipe, SideRule, seeded_coin};
use crate::mutate::{Mutation, OperatorKind};
use crate::snapshot::Snapshot;

pub(crate) struct StripRestore;

impl FamilyBuilder for StripRestore {
    fn side_rule(&self) -> SideRule {
        SideRule::BothFail
    }


    fn description(&self) -> &'static str {
        "two nearby statements are removed to make `base`; each side restores one. Gold is the original. Each side alone fails."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let gold: &'a Snapshot = &input.substrate.files;
        let mut out = Vec::new();
        for (module, mutations) in input.modules.iter().zip(input.mutations) {
            let removals: Vec<&'a Mutation> =
                mutations.iter().filter(|m| m.kind == OperatorKind::Remove && m.replacement.is_empty()).collect();
            // The second statement starts exactly where the first one's lines end.
            let pairs = capped_pairs(&removals, |(_, first), (_, second)| {
                second.start == first.end && second.function == first.function
            });
            for (first, second) in pairs {
                let key = format!("strip-restore|{}|{}", first.key(), second.key());
                out.push(
                    PairRecipe {
                        summary: format!(
                            "{}: both sides restore a statement at line {} ({} / {})",
                            module.path, first.line, first.description, second.description
                        ),
                        // Which side restores which statement is the seed's choice.
                        swap_sides: !seeded_coin(input.seed, &key),
                        key,
                        gold,
                        module,
                        first,
                        second,
                    }
                    .into_recipe(),
                );
            }
        }
        out
    }
}
