//! Task families: how a conflict is made and what its gold merge is.
//!
//! A family looks at a substrate's parsed sources and its mutations and proposes
//! [`Candidate`]s: four snapshots (base, ours, theirs, gold) plus the rule the tests
//! must follow on ours and theirs. This stage also writes candidates as git commits
//! ([`commits`]). It does not merge, run tests, or level.

pub(crate) mod authorship;
pub mod commits;
mod families;
pub(crate) mod messages;
pub mod proposal;
pub(crate) mod splice;

pub use families::Family;

use std::collections::{BTreeMap, VecDeque};

use crate::intent::Kind;
pub(crate) use proposal::{seeded_rank, ForgeInput, Group, Intent, Proposal, Recipe, SideRule};

impl Family {
    /// The family's kebab-case name, as serde writes it (`strip-restore`).
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }

    /// Looks a family up by name.
    pub(crate) fn parse(name: &str) -> Option<Family> {
        name.parse().ok()
    }

    /// What the tests must say about the two sides taken alone.
    pub(crate) fn side_rule(self) -> SideRule {
        self.builder().side_rule()
    }

    /// The families `gen-tasks` uses when `--families` is not given, in catalogue order.
    pub(crate) fn default_mix() -> Vec<Family> {
        Family::ALL.into_iter().filter(|f| f.builder().in_default_mix()).collect()
    }

    /// Whether a default-mix run caps the family's semantic and mixed tasks.
    pub(crate) fn caps_breaks_outside_markers(self) -> bool {
        self.builder().caps_breaks_outside_markers()
    }

    /// Whether the family makes medium and large tasks (`gen-tasks --scale`).
    pub(crate) fn deals_branches(self) -> bool {
        self.builder().deals_branches()
    }

    /// The family's group: repairs of a broken base, integrations of two valid changes,
    /// or real history.
    pub(crate) fn group(self) -> Group {
        self.builder().group()
    }

    /// The intents' sites a mix of `families` reads: every kind's at HEAD when one of
    /// them is an integration family (a probe may run tests to find some), else none.
    pub(crate) fn site_table(
        families: &[Family],
        substrate: &crate::substrate::Substrate,
        modules: &[crate::python::PyModule],
        coverage: Option<&crate::pytest::select::CoverageMap>,
        probe: Option<&dyn crate::intent::Probe>,
    ) -> crate::intent::SiteTable {
        if families.iter().any(|f| f.group() == Group::Integration) {
            ForgeInput::site_table(substrate, modules, coverage, probe)
        } else {
            crate::intent::SiteTable::default()
        }
    }

    /// One sentence on how the family makes a task (the dataset card's list).
    pub(crate) fn description(self) -> &'static str {
        self.builder().description()
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// A proposed task of a family, before merging and validation: its [`Proposal`] (read
/// through it: `candidate.base`) and the family that proposed it.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub family: Family,
    pub proposal: Proposal,
}

impl std::ops::Deref for Candidate {
    type Target = Proposal;

    fn deref(&self) -> &Proposal {
        &self.proposal
    }
}

/// Candidates of `family`, ordered deterministically by a hash of (seed, key) and dealt
/// by their intents' kinds ([`dealt_by_kinds`]): the first `cap` recipes (in that order)
/// that build.
pub(crate) fn ordered_candidates(family: Family, input: &ForgeInput, cap: usize) -> Vec<Candidate> {
    let mut keyed: Vec<(String, Recipe)> =
        family.builder().recipes(input).into_iter().map(|r| (seeded_rank(input.seed, &r.key), r)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.key.cmp(&b.1.key)));
    keyed.dedup_by(|a, b| a.1.key == b.1.key);
    let keyed = dealt_by_kinds(keyed);
    // Every recipe is wanted: built in parallel (in order), as building can parse and
    // refactor whole trees (a history family reads a tree per commit).
    let proposals: Vec<Proposal> = if cap >= keyed.len() {
        use rayon::prelude::*;
        keyed.par_iter().filter_map(|(_, recipe)| (recipe.build)()).collect()
    } else {
        keyed.iter().filter_map(|(_, recipe)| (recipe.build)()).take(cap).collect()
    };
    proposals.into_iter().map(|proposal| Candidate { family, proposal }).collect()
}

/// `ranked` (in rank order) dealt by the kinds of their intents: recipes combining the
/// same kinds form a group (in rank order), and each next recipe is the next of the group
/// whose kinds were dealt least so far (summed over its kinds; ties to the group whose
/// first recipe ranks first). One common kind (a project's fifty branches) would
/// otherwise fill a cell before a rare one (its one decorator) is ever tried: this is
/// what makes a run's tasks use many kinds. Recipes without kinds keep their order.
fn dealt_by_kinds<T>(ranked: Vec<(T, Recipe)>) -> Vec<(T, Recipe)> {
    /// Recipes combining the same kinds, in rank order.
    type Group<'r, T> = (Vec<Kind>, VecDeque<(T, Recipe<'r>)>);
    let mut groups: Vec<Group<T>> = Vec::new();
    for item in ranked {
        let mut kinds = item.1.kinds.clone();
        kinds.sort();
        match groups.iter_mut().find(|(k, _)| *k == kinds) {
            Some((_, group)) => group.push_back(item),
            None => groups.push((kinds, VecDeque::from([item]))),
        }
    }
    let mut dealt: BTreeMap<Kind, usize> = BTreeMap::new();
    let mut out = Vec::new();
    loop {
        let score = |kinds: &[Kind]| kinds.iter().map(|k| dealt.get(k).copied().unwrap_or(0)).sum::<usize>();
        let next =
            groups.iter().enumerate().filter(|(_, (_, g))| !g.is_empty()).min_by_key(|(i, (k, _))| (score(k), *i));
        let Some((i, _)) = next else { break };
        let (kinds, group) = &mut groups[i];
        out.extend(group.pop_front());
        for kind in kinds.iter() {
            *dealt.entry(*kind).or_default() += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(key: &str, kinds: &[Kind]) -> (String, Recipe<'static>) {
        (key.to_string(), Recipe { key: key.to_string(), kinds: kinds.to_vec(), build: Box::new(|| None) })
    }

    #[test]
    fn recipes_are_dealt_so_that_rare_kinds_come_early() {
        use Kind::{AddFunction, Branch, Rename, RenameLocal};
        let ranked = vec![
            recipe("a", &[Branch, RenameLocal]),
            recipe("b", &[RenameLocal, Branch]),
            recipe("c", &[Branch, Rename]),
            recipe("d", &[AddFunction, RenameLocal]),
        ];
        let order: Vec<String> = dealt_by_kinds(ranked).into_iter().map(|(k, _)| k).collect();
        assert_eq!(order, ["a", "c", "d", "b"]);
        let plain = vec![recipe("x", &[]), recipe("y", &[])];
        let order: Vec<String> = dealt_by_kinds(plain).into_iter().map(|(k, _)| k).collect();
        assert_eq!(order, ["x", "y"], "recipes without kinds keep their order");
    }
}
