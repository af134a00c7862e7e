//! feature-feature: two developers add features at the same place — neighbouring
//! functions of one module or methods of one class, neighbouring branches of one
//! function (two clauses of one if-chain, two handlers of one `try`), two modules of
//! one package (exported side by side by its `__init__.py`), each with its
//! tests (which often sit side by side in one test file and share an import line). Every
//! feature kind of the intent catalogue takes part. Base has neither, each side
//! adds one (HEAD's real code and tests), gold has both. A double task pairs two such
//! places in different files, one feature of each going to each side. A task with a
//! rename gives the first side a second intent: it also renames a name the other
//! side's feature uses (a module-level name, or a local or parameter of the function
//! both branches sit in, a parameter with its keyword arguments at every call), so the
//! feature must be written against the new name — two features side by side that no
//! concatenation of the sides combines. A task with a contract change does the same with
//! a unit only the other side's feature calls: the first side changes its signature,
//! return shape or units and adapts every existing caller, and the neighbour in the
//! conflict must be adapted the same way.

use super::integrate::{independent, listed, neighbours, uses, Sides};
use crate::forge::proposal::{FamilyBuilder, ForgeInput, Recipe, SideRule};
use crate::intent::{Kind, Rewrites, Site};

pub(crate) struct FeatureFeature;

impl FamilyBuilder for FeatureFeature {
    fn side_rule(&self) -> SideRule {
        SideRule::BothPass
    }

    fn description(&self) -> &'static str {
        "two developers add features (functions, methods or branches with their tests) at the same place; base has neither, gold both."
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let workspace = input.workspace();
        let features: Vec<&Site> = Kind::features().into_iter().flat_map(|kind| input.sites(kind)).collect();
        let renames: Vec<&Site> = Kind::renames()
            .into_iter()
            .filter(|kind| kind.rewrites() != Some(Rewrites::Method))
            .flat_map(|kind| input.sites(kind))
            .collect();
        let contracts: Vec<&Site> = Kind::contracts().into_iter().flat_map(|kind| input.sites(kind)).collect();
        let pairs: Vec<(Site, Site)> = features
            .iter()
            .flat_map(|a| features.iter().map(move |b| (*a, *b)))
            .filter(|(a, b)| neighbours(workspace.tree, a, b) && independent(a, b))
            .map(|(a, b)| (a.clone(), b.clone()))
            .collect();
        let mut out = Vec::new();
        for (i, (a, b)) in pairs.iter().enumerate() {
            out.push(recipe(input, vec![a.clone()], vec![b.clone()]));
            // A rename of a name one feature uses (and the other does not) joins the other side.
            for (own, other) in [(a, b), (b, a)] {
                if let Some(rename) = renames.iter().find(|r| reaches_only(r, own, other)) {
                    out.push(recipe(input, vec![own.clone(), (*rename).clone()], vec![other.clone()]));
                }
                // So does a change of the contract of a unit only the other feature calls:
                // the neighbour must be written against the new promise.
                if let Some(contract) = contracts.iter().find(|c| reaches_only(c, own, other)) {
                    out.push(recipe(input, vec![own.clone(), (*contract).clone()], vec![other.clone()]));
                }
            }
            // The next pair of the same kinds in another file makes a double task across
            // two files.
            let other = pairs
                .iter()
                .cycle()
                .skip(i + 1)
                .take(pairs.len())
                .find(|(c, d)| c.path != a.path && (c.kind, d.kind) == (a.kind, b.kind));
            if let Some((c, d)) = other {
                if [a, b].iter().all(|x| independent(x, c) && independent(x, d)) {
                    out.push(recipe(input, vec![a.clone(), c.clone()], vec![b.clone(), d.clone()]));
                }
            }
        }
        out
    }
}

/// Whether `rename` (or a contract change) rewrites a name `other`'s code reads: a local
/// or a parameter of its function (`own` may read it too: the first side renames it
/// there as well), or a module-level name `own` does not use and is not.
fn reaches_only(rename: &Site, own: &Site, other: &Site) -> bool {
    if rename.kind.renames_in_function() {
        return uses(other, rename);
    }
    rename.symbol != own.symbol && rename.uses.iter().any(|n| other.uses.contains(n) && !own.uses.contains(n))
}

/// A task whose first side makes `first` (features, then maybe a refactor), the second
/// adds the features `second`.
fn recipe<'a>(input: &ForgeInput<'a>, first: Vec<Site>, second: Vec<Site>) -> Recipe<'a> {
    let keys: Vec<String> = first.iter().chain(&second).map(Site::key).collect();
    let key = format!("feature-feature|{}", keys.join("|"));
    let workspace = input.workspace();
    let seed = input.seed;
    Recipe {
        key: key.clone(),
        kinds: first.iter().chain(&second).map(|s| s.kind).collect(),
        build: Box::new(move || {
            let refactors: Vec<&Site> = first.iter().filter(|s| !s.kind.is_feature()).collect();
            Sides {
                summary: format!(
                    "one side makes {}, the other adds {} at the same place; gold has both{}",
                    listed(&first),
                    listed(&second),
                    against(&refactors)
                ),
                key: key.clone(),
                first: first.clone(),
                second: second.clone(),
            }
            .propose(&workspace, seed)
        }),
    }
}

/// How gold writes the second side's features: against the first side's refactor or
/// contract change, when it makes one.
fn against(changes: &[&Site]) -> &'static str {
    match changes {
        [] => "",
        _ if changes.iter().any(|c| c.kind.contract().is_some()) => ", the second written against the contract change",
        _ => ", the second written against the refactor",
    }
}

#[cfg(test)]
mod tests {
    use super::super::integrate::site;
    use super::*;

    #[test]
    fn a_rename_joins_the_side_whose_neighbour_reads_the_renamed_name() {
        let guard = site(Kind::Branch, "parse#guard1", &["parse.text", "tokenize"]);
        let elif = site(Kind::Branch, "parse#elif1", &["parse.text", "parse.pos"]);
        // A parameter or a local of the function both branches sit in: the other reads it.
        assert!(reaches_only(&site(Kind::RenameParam, "parse.text", &["parse"]), &guard, &elif));
        assert!(reaches_only(&site(Kind::RenameLocal, "parse.pos", &["parse"]), &guard, &elif));
        assert!(!reaches_only(&site(Kind::RenameLocal, "parse.pos", &["parse"]), &elif, &guard));
        // A module-level name only when the side's own feature does not use it.
        let tokenize = site(Kind::Rename, "tokenize", &["tokenize"]);
        assert!(reaches_only(&tokenize, &elif, &guard));
        assert!(!reaches_only(&tokenize, &guard, &site(Kind::Branch, "lex#else1", &["tokenize"])));
        // A contract change of a unit only the other feature calls joins the same way.
        let reorder = site(Kind::ReorderParams, "tokenize", &["tokenize"]);
        assert!(reaches_only(&reorder, &elif, &guard));
        assert!(!reaches_only(&reorder, &guard, &elif));
        assert!(!reaches_only(&site(Kind::ReturnDict, "Parser._advance", &["._advance"]), &guard, &elif));
    }
}
