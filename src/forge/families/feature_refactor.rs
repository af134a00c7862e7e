//! feature-refactor: one developer adds a feature (a function, a method or a branch with
//! its tests) that uses a name of the project; the other refactors that name — renames
//! it, or moves it to another module — everywhere it is used, tests included; renames a
//! method the feature calls on `self` (with its overrides); or renames a local variable
//! or a parameter of the function a branch reads (a parameter with its keyword
//! arguments at every call). Base lacks the feature; gold is the refactor applied to
//! HEAD with the feature, so the feature's new lines must be carried over to the
//! refactored name: code neither side had.

use super::integrate::{applied, independent, listed, uses, Sides};
use crate::forge::proposal::{seeded_rank, FamilyBuilder, ForgeInput, Recipe, SideRule};
use crate::snapshot::{self, Snapshot};
use crate::intent::{naming, Kind, Site};

pub struct FeatureRefactor;

/// The refactor kinds a feature can collide with.
const REFACTORS: [Kind; 5] = [Kind::Rename, Kind::Move, Kind::RenameLocal, Kind::RenameParam, Kind::RenameMethod];

impl FamilyBuilder for FeatureRefactor {
    fn side_rule(&self) -> SideRule {
        SideRule::BothPass
    }

    fn description(&self) -> &'static str {
        "one developer adds a feature with its tests that uses a name, the other renames or moves that name everywhere (or renames a method, local or parameter the feature reads); gold is the refactor applied to the feature too."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let workspace = input.workspace();
        let features: Vec<&Site> = Kind::features().into_iter().flat_map(|kind| input.sites(kind)).collect();
        let mut out = Vec::new();
        for refactor in REFACTORS.iter().flat_map(|kind| input.sites(*kind)) {
            let users: Vec<&Site> = features.iter().copied().filter(|f| uses(f, refactor)).collect();
            for feature in &users {
                // A feature beside a line the refactor rewrites collides in the text (a
                // branch reading a renamed local holds such lines itself); elsewhere the
                // collision is a break outside the markers (mixed or semantic, capped at
                // a quarter of a run): only some of those are tried.
                let local = refactor.kind.renames_in_function();
                if local || beside_a_use(workspace.tree, feature, refactor) || one_in_four(refactor, feature) {
                    out.push(recipe(input, vec![(*feature).clone()], refactor.clone()));
                }
            }
            // Two features using the name, on one side: the refactor reaches both.
            let pair = users.iter().enumerate().find_map(|(i, a)| {
                users[i + 1..].iter().find(|b| independent(a, b)).map(|b| ((*a).clone(), (*b).clone()))
            });
            if let Some((a, b)) = pair {
                out.push(recipe(input, vec![a, b], refactor.clone()));
            }
        }
        out
    }
}

/// Whether the nearest code line before or after `feature` in HEAD mentions a name
/// `refactor` rewrites: adding the feature there edits lines next to the refactor's.
fn beside_a_use(tree: &Snapshot, feature: &Site, refactor: &Site) -> bool {
    let Some(text) = snapshot::text_of(tree, &feature.path) else { return false };
    let lines: Vec<&str> = text.lines().collect();
    let code = |line: &&&str| !line.trim().is_empty();
    let before = lines[..feature.lines.start.saturating_sub(1).min(lines.len())].iter().rev().find(code).copied();
    let after = lines[(feature.lines.end.saturating_sub(1)).min(lines.len())..].iter().find(code).copied();
    [before, after].into_iter().flatten().any(|line| refactor.uses.iter().any(|name| naming::occurs(line, name)))
}

/// A deterministic quarter of the (feature, refactor) pairs.
fn one_in_four(refactor: &Site, feature: &Site) -> bool {
    seeded_rank(0, &format!("{}|{}", feature.key(), refactor.key())).starts_with(['0', '1', '2', '3'])
}

/// A task whose first side adds `features`, the second makes `refactor`.
fn recipe<'a>(input: &ForgeInput<'a>, features: Vec<Site>, refactor: Site) -> Recipe<'a> {
    let keys: Vec<String> = features.iter().map(Site::key).collect();
    let key = format!("feature-refactor|{}|{}", keys.join("|"), refactor.key());
    let workspace = input.workspace();
    let seed = input.seed;
    Recipe {
        key: key.clone(),
        build: Box::new(move || {
            let head = workspace.tree;
            let base = applied(&workspace, head, &features.iter().collect::<Vec<_>>())?;
            let refactored = refactor.apply(&workspace, &base)?;
            let gold = refactor.apply(&workspace, head)?;
            Sides {
                summary: format!(
                    "one side adds {} using `{}`; the other makes `{}` ({}); gold writes the new code against the refactor",
                    listed(&features),
                    refactor.symbol,
                    refactor.message(),
                    refactor.kind
                ),
                key: key.clone(),
                base,
                first: (head.clone(), features.clone()),
                second: (refactored, vec![refactor.clone()]),
                gold,
            }
            .propose(seed)
        }),
    }
}
