//! compose-edits: two mutations in one statement (or on adjacent lines of one function)
//! make base; ours undoes the first, theirs the second; gold is the original. Neither
//! side, nor both sides' lines concatenated, passes: only a true combination does.

use super::pairs::{capped_pairs, PairRecipe};
use crate::forge::proposal::{FamilyBuilder, ForgeInput, Recipe, SideRule};
use crate::mutate::{Mutation, OperatorKind};
use crate::snapshot::Snapshot;

pub(crate) struct ComposeEdits;

impl FamilyBuilder for ComposeEdits {
    fn side_rule(&self) -> SideRule {
        SideRule::BothFail
    }


    fn description(&self) -> &'static str {
        "two mutations in one statement or adjacent lines; each side undoes one. Neither side, nor both concatenated, passes: only a real combination does."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let gold: &'a Snapshot = &input.substrate.files;
        let mut out = Vec::new();
        for (module, mutations) in input.modules.iter().zip(input.mutations) {
            let alters: Vec<&'a Mutation> =
                mutations.iter().filter(|m| m.kind == OperatorKind::Alter && m.function.is_some()).collect();
            // Later in the same function, on the same or the next line, not overlapping.
            let pairs = capped_pairs(&alters, |(i, first), (j, second)| {
                j > i && second.line <= first.line + 1 && !first.overlaps(second) && first.function == second.function
            });
            for (first, second) in pairs {
                out.push(
                    PairRecipe {
                        key: format!("compose-edits|{}|{}", first.key(), second.key()),
                        summary: format!(
                            "{}:{}: base has {} and {}; each side fixes one",
                            module.path, first.line, first.description, second.description
                        ),
                        gold,
                        module,
                        first,
                        second,
                        swap_sides: false,
                    }
                    .into_recipe(),
                );
            }
        }
        out
    }
}
