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
//! own cells of a run.

use super::feature_refactor::recipe;
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
        "one developer adds a feature with its tests that calls a unit, the other changes that unit's contract (signature, return shape, units) and adapts every caller and test; gold adapts the feature's calls too."
    }

    /// A contract task's break outside the markers (a feature's call still written
    /// against the old promise) is what the task is about, not a leftover a tool carries.
    fn caps_breaks_outside_markers(&self) -> bool {
        false
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let features: Vec<&Site> = Kind::features().into_iter().flat_map(|kind| input.sites(kind)).collect();
        let mut out = Vec::new();
        for contract in Kind::contracts().into_iter().flat_map(|kind| input.sites(kind)) {
            let users: Vec<&Site> = features.iter().copied().filter(|f| uses(f, contract)).collect();
            for feature in &users {
                out.push(recipe(input, NAME, vec![(*feature).clone()], vec![contract.clone()]));
            }
            // Two features calling the unit, on one side: the merge adapts both.
            if let Some((a, b)) = first_independent_pair(&users) {
                out.push(recipe(input, NAME, vec![a, b], vec![contract.clone()]));
            }
        }
        out
    }
}
