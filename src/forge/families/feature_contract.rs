//! feature-contract: one developer adds a feature (a function, a method or a branch with
//! its tests) that calls a unit of the project; the other changes that unit's contract —
//! its signature, the shape of what it returns, the units of a value — and adapts every
//! existing caller and test. Base lacks the feature; gold is the contract change applied
//! to HEAD with the feature, so the feature's calls are adapted the way the contract side
//! adapted the others: code neither side had, about what a call means rather than what
//! it is named.
//!
//! The sides are built as feature-refactor builds them (the contract change takes the
//! refactor's place); this family keeps them apart so that contract changes fill their
//! own cells of a run. A crossed task gives each developer a feature and a change of the
//! unit the other's feature calls (a contract change, or on one side a refactor): the
//! merge adapts new code in two files, each to the other side's change.

use super::compound;
use super::feature_refactor::{crossings, recipe, CROSSINGS};
use super::integrate::{first_independent_pair, uses};
use crate::forge::proposal::{FamilyBuilder, ForgeInput, Recipe, SideRule};
use crate::intent::{Kind, Site};

pub(crate) struct FeatureContract;

/// The family's name in recipe keys.
const NAME: &str = "feature-contract";

impl FamilyBuilder for FeatureContract {
    fn side_rule(&self) -> SideRule {
        SideRule::BothPass
    }

    fn description(&self) -> &'static str {
        "one developer adds a feature with its tests that calls a unit, the other changes that unit's contract (signature, return shape, units) and adapts every caller and test, or each does one of each, crossed; gold adapts the features' calls too."
    }

    /// A contract task's break outside the markers (a feature's call still written
    /// against the old promise) is what the task is about, not a leftover a tool carries.
    fn caps_breaks_outside_markers(&self) -> bool {
        false
    }

    fn deals_branches(&self) -> bool {
        true
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let features: Vec<&Site> = Kind::features().into_iter().flat_map(|kind| input.sites(kind)).collect();
        if let Some(k) = compound::pairs_for(input.scale) {
            return branches(input, &features, k);
        }
        let mut out = Vec::new();
        // Every (feature, contract change) pair, for the crossed tasks below.
        let mut contracts: Vec<(&Site, &Site)> = Vec::new();
        for contract in Kind::contracts().into_iter().flat_map(|kind| input.sites(kind)) {
            let users: Vec<&Site> = features.iter().copied().filter(|f| uses(f, contract)).collect();
            for feature in &users {
                out.push(recipe(input, NAME, vec![(*feature).clone()], vec![contract.clone()]));
                contracts.push((feature, contract));
            }
            // Two features calling the unit, on one side: the merge adapts both.
            if let Some((a, b)) = first_independent_pair(&users) {
                out.push(recipe(input, NAME, vec![a, b], vec![contract.clone()]));
            }
        }
        let refactors = compound::pairs(input, &features, Kind::refactors());
        let crossed = crossed(&contracts, &refactors);
        out.extend(crossed.into_iter().map(|(first, second)| recipe(input, NAME, first, second)));
        out
    }
}

/// Branch-scale tasks of `k` pairs, each starting from a (feature, contract change) pair
/// and dealing later contract and refactor pairs beside it.
fn branches<'a>(input: &ForgeInput<'a>, features: &[&'a Site], k: usize) -> Vec<Recipe<'a>> {
    let contracts = compound::pairs(input, features, Kind::contracts());
    let starts = contracts.len();
    let pairs: Vec<(&Site, &Site)> =
        contracts.into_iter().chain(compound::pairs(input, features, Kind::refactors())).collect();
    compound::dealt(&pairs, starts, k).into_iter().map(|(first, second)| recipe(input, NAME, first, second)).collect()
}

/// The crossed tasks: each (feature, contract change) pair crossed with later such pairs
/// and with (feature, refactor) pairs, each side adding one feature and changing the unit
/// the other side's feature calls, so the merge adapts new code in two files, at least
/// one of them to a new contract.
fn crossed<'s>(contracts: &[(&'s Site, &'s Site)], refactors: &[(&'s Site, &'s Site)]) -> Vec<(Vec<Site>, Vec<Site>)> {
    contracts
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            // The refactors rotated by the pair's place, so that crossings spread over them.
            let start = (i * CROSSINGS) % refactors.len().max(1);
            let rotated = refactors[start..].iter().chain(&refactors[..start]);
            let later: Vec<(&Site, &Site)> = contracts[i + 1..].iter().chain(rotated).copied().collect();
            crossings(*a, &later)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::integrate::site_in as site;
    use super::*;

    #[test]
    fn crossed_tasks_give_each_side_a_feature_and_the_change_the_other_calls() {
        let guard = site(Kind::Branch, "pkg/a.py", "parse#guard1", &["tokenize"]);
        let reorder = site(Kind::ReorderParams, "pkg/a.py", "tokenize", &["tokenize"]);
        let elif = site(Kind::Branch, "pkg/b.py", "render#elif1", &["measure"]);
        let scale = site(Kind::ScaleParam, "pkg/b.py", "measure", &["measure"]);
        let helper = site(Kind::AddFunction, "pkg/c.py", "wrap", &["indent"]);
        let rename = site(Kind::Rename, "pkg/c.py", "indent", &["indent"]);
        let contracts = [(&guard, &reorder), (&elif, &scale)];
        let refactors = [(&helper, &rename)];
        // The first contract pair crosses with the second and with the refactor pair; the
        // second with the refactor pair only (no pair crosses back); refactor pairs
        // never cross each other here (feature-refactor's task).
        assert_eq!(
            crossed(&contracts, &refactors),
            vec![
                (vec![guard.clone(), scale.clone()], vec![elif.clone(), reorder.clone()]),
                (vec![guard.clone(), rename.clone()], vec![helper.clone(), reorder.clone()]),
                (vec![elif.clone(), rename.clone()], vec![helper.clone(), scale.clone()]),
            ]
        );
        // A feature in the same file as the other pair's, or one that also calls the
        // other side's unit, is not crossed.
        let near = site(Kind::Branch, "pkg/a.py", "parse#elif2", &["measure"]);
        assert!(crossed(&[(&guard, &reorder), (&near, &scale)], &[]).is_empty());
        let both = site(Kind::Branch, "pkg/b.py", "render#elif2", &["measure", "tokenize"]);
        assert!(crossed(&[(&guard, &reorder), (&both, &scale)], &[]).is_empty());
    }
}
