//! move-edit: one developer moves a class or a function to another module and updates
//! every use; the other adds a feature inside it where it was, with its tests: a method
//! of the class, or a branch of a moved function or of one of the class's methods. git
//! sees one side empty the lines the other edited (a content conflict in the old place);
//! gold carries the feature to the new place.
//!
//! The edit is a feature (of any feature kind), never a refactor: a semantics-preserving edit (a renamed
//! local) left behind in the old place passes every test, so taking one side would
//! solve the task.

use super::integrate::Sides;
use crate::forge::proposal::{FamilyBuilder, ForgeInput, Recipe, SideRule};
use crate::intent::{Kind, Site};

pub(crate) struct MoveEdit;

impl FamilyBuilder for MoveEdit {
    fn side_rule(&self) -> SideRule {
        SideRule::BothPass
    }

    fn description(&self) -> &'static str {
        "one developer moves a class or function to another module, the other adds a method or a branch to it where it was; gold adds it in the new place."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let edits: Vec<&Site> = Kind::features().into_iter().flat_map(|kind| input.sites(kind)).collect();
        let mut out = Vec::new();
        for moved in input.sites(Kind::Move) {
            for edit in edits.iter().filter(|e| e.path == moved.path && inside(e, moved)) {
                out.push(recipe(input, moved.clone(), (*edit).clone()));
            }
        }
        out
    }
}

/// Whether a feature's unit lies inside the moved unit: a member of a moved class
/// (`Class.method`, `Class.method#else1`), a branch of a moved function (`func#elif2`).
fn inside(edit: &Site, moved: &Site) -> bool {
    [".", "#"].iter().any(|sep| edit.symbol.starts_with(&format!("{}{sep}", moved.symbol)))
}

/// A task whose first side makes `edit` where the unit is, the second `moved`.
fn recipe<'a>(input: &ForgeInput<'a>, moved: Site, edit: Site) -> Recipe<'a> {
    let key = format!("move-edit|{}|{}", moved.key(), edit.key());
    let workspace = input.workspace();
    let seed = input.seed;
    Recipe {
        key: key.clone(),
        kinds: vec![moved.kind, edit.kind],
        build: Box::new(move || {
            // The method is taken out of base and added by its side; gold adds it in
            // the new place.
            Sides {
                summary: format!(
                    "one side moves `{}` to {}; the other makes `{}` where it was; gold adds it in the new place",
                    moved.symbol,
                    moved.target.as_deref().unwrap_or_default(),
                    edit.message()
                ),
                key: key.clone(),
                first: vec![edit.clone()],
                second: vec![moved.clone()],
            }
            .propose(&workspace, seed)
        }),
    }
}
