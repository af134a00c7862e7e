//! feature-feature: two developers add features at the same place — neighbouring
//! functions of one module or methods of one class, each with its tests (which often sit
//! side by side in one test file and share an import line). Base has neither, each side
//! adds one (HEAD's real code and tests), gold has both. A double task pairs two such
//! places in different files, one feature of each going to each side.

use super::integrate::{applied, independent, listed, neighbours, Sides};
use crate::forge::proposal::{FamilyBuilder, ForgeInput, Recipe, SideRule};
use crate::intent::{Kind, Site};

pub struct FeatureFeature;

impl FamilyBuilder for FeatureFeature {
    fn side_rule(&self) -> SideRule {
        SideRule::BothPass
    }

    fn description(&self) -> &'static str {
        "two developers add features (functions or methods with their tests) at the same place; base has neither, gold both."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let workspace = input.workspace();
        let features = Kind::AddFunction.sites(&workspace);
        let pairs: Vec<(Site, Site)> = features
            .iter()
            .flat_map(|a| features.iter().map(move |b| (a, b)))
            .filter(|(a, b)| neighbours(workspace.tree, a, b) && independent(a, b))
            .map(|(a, b)| (a.clone(), b.clone()))
            .collect();
        let mut out = Vec::new();
        for (i, (a, b)) in pairs.iter().enumerate() {
            out.push(recipe(input, vec![a.clone()], vec![b.clone()]));
            // The next pair in another file makes a double task across two files.
            let other = pairs.iter().cycle().skip(i + 1).take(pairs.len()).find(|(c, _)| c.path != a.path);
            if let Some((c, d)) = other {
                if [a, b].iter().all(|x| independent(x, c) && independent(x, d)) {
                    out.push(recipe(input, vec![a.clone(), c.clone()], vec![b.clone(), d.clone()]));
                }
            }
        }
        out
    }
}

/// A task whose first side adds `first`, the second `second`.
fn recipe<'a>(input: &ForgeInput<'a>, first: Vec<Site>, second: Vec<Site>) -> Recipe<'a> {
    let keys: Vec<String> = first.iter().chain(&second).map(Site::key).collect();
    let key = format!("feature-feature|{}", keys.join("|"));
    let workspace = input.workspace();
    let seed = input.seed;
    Recipe {
        key: key.clone(),
        build: Box::new(move || {
            let head = workspace.tree;
            let all: Vec<&Site> = first.iter().chain(&second).collect();
            let base = applied(&workspace, head, &all)?;
            let first_tree = applied(&workspace, head, &second.iter().collect::<Vec<_>>())?;
            let second_tree = applied(&workspace, head, &first.iter().collect::<Vec<_>>())?;
            Sides {
                summary: format!(
                    "one side adds {}, the other {} at the same place; gold has both",
                    listed(&first),
                    listed(&second)
                ),
                key: key.clone(),
                base,
                first: (first_tree, first.clone()),
                second: (second_tree, second.clone()),
                gold: head.clone(),
            }
            .propose(seed)
        }),
    }
}
