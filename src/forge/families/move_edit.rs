//! move-edit: one developer moves a function or class to another module and updates
//! every use; the other edits it where it was — renames a local of its body, or adds a
//! method to the class with its tests. git sees one side empty the lines the other
//! edited (a content conflict in the old place); gold carries the edit to the new place.

use super::integrate::{applied, Sides};
use crate::forge::proposal::{FamilyBuilder, ForgeInput, Recipe, SideRule};
use crate::intent::{Change, Kind, Site};

pub struct MoveEdit;

/// The edits a moved unit can receive where it was.
const EDITS: [Kind; 2] = [Kind::RenameLocal, Kind::AddFunction];

impl FamilyBuilder for MoveEdit {
    fn side_rule(&self) -> SideRule {
        SideRule::BothPass
    }

    fn description(&self) -> &'static str {
        "one developer moves a function or class to another module, the other edits it where it was; gold makes the edit in the new place."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let workspace = input.workspace();
        let edits: Vec<Site> = EDITS.iter().flat_map(|kind| kind.sites(&workspace)).collect();
        let mut out = Vec::new();
        for moved in Kind::Move.sites(&workspace) {
            let prefix = format!("{}.", moved.symbol);
            for edit in edits.iter().filter(|e| e.path == moved.path && e.symbol.starts_with(&prefix)) {
                out.push(recipe(input, moved.clone(), edit.clone()));
            }
        }
        out
    }
}

/// A task whose first side makes `edit` where the unit is, the second `moved`.
fn recipe<'a>(input: &ForgeInput<'a>, moved: Site, edit: Site) -> Recipe<'a> {
    let key = format!("move-edit|{}|{}", moved.key(), edit.key());
    let workspace = input.workspace();
    let seed = input.seed;
    Recipe {
        key: key.clone(),
        build: Box::new(move || {
            let head = workspace.tree;
            // A feature edit is taken out of base and added by its side; a refactor is
            // made by its side on HEAD.
            let (base, edited) = match edit.kind.transform().change() {
                Change::Feature => (applied(&workspace, head, &[&edit])?, head.clone()),
                Change::Refactor => (head.clone(), edit.apply(&workspace, head)?),
            };
            let moved_tree = moved.apply(&workspace, &base)?;
            let gold = moved.apply(&workspace, &edited)?;
            Sides {
                summary: format!(
                    "one side moves `{}` to {}; the other makes `{}` where it was; gold makes that edit in the new place",
                    moved.symbol,
                    moved.target.as_deref().unwrap_or_default(),
                    edit.message()
                ),
                key: key.clone(),
                base,
                first: (edited, vec![edit.clone()]),
                second: (moved_tree, vec![moved.clone()]),
                gold,
            }
            .propose(seed)
        }),
    }
}
