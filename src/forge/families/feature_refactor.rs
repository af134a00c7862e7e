//! feature-refactor: one developer adds a feature (a function, a method or a branch with
//! its tests) that uses a name of the project; the other refactors that name — renames
//! it, or moves it to another module — everywhere it is used, tests included; renames a
//! method the feature calls on `self` (with its overrides); or renames a local variable
//! or a parameter of the function a branch reads (a parameter with its keyword
//! arguments at every call). Base lacks the feature; gold is the refactor applied to
//! HEAD with the feature, so the feature's new lines must be carried over to the
//! refactored name: code neither side had.
//!
//! A crossed task joins two such pairs in different files: each developer adds one
//! feature and makes the refactor the other's feature collides with ("Add `x`" and
//! "Rename `y`" on one branch), so the resolution carries a refactor into new code in
//! both files.

use super::compound;
use super::integrate::{first_independent_pair, independent, listed, uses, Sides};
use crate::forge::proposal::{seeded_rank, FamilyBuilder, ForgeInput, Recipe, SideRule};
use crate::snapshot::{self, Snapshot};
use crate::intent::{naming, Kind, Rewrites, Site};

pub(crate) struct FeatureRefactor;

/// The family's name in recipe keys.
const NAME: &str = "feature-refactor";

impl FamilyBuilder for FeatureRefactor {
    fn side_rule(&self) -> SideRule {
        SideRule::BothPass
    }

    fn description(&self) -> &'static str {
        "one developer adds a feature with its tests that uses a name, the other renames or moves that name everywhere (or renames a method, local or parameter the feature reads), or each does one of each, crossed; gold is the refactor applied to the feature too."
    }

    fn deals_branches(&self) -> bool {
        true
    }

    fn recipes<'a>(&self, input: &ForgeInput<'a>) -> Vec<Recipe<'a>> {
        let workspace = input.workspace();
        let features: Vec<&Site> = Kind::features().into_iter().flat_map(|kind| input.sites(kind)).collect();
        if let Some(k) = compound::pairs_for(input.scale) {
            let pairs = compound::pairs(input, &features, Kind::refactors());
            let dealt = compound::dealt(&pairs, pairs.len(), k);
            return dealt.into_iter().map(|(first, second)| recipe(input, NAME, first, second)).collect();
        }
        let mut out = Vec::new();
        let mut singles: Vec<(&Site, &Site)> = Vec::new();
        for refactor in Kind::refactors().into_iter().flat_map(|kind| input.sites(kind)) {
            let users: Vec<&Site> = features.iter().copied().filter(|f| uses(f, refactor)).collect();
            for feature in &users {
                // A feature beside a line the refactor rewrites collides in the text (a
                // branch reading a renamed local holds such lines itself); elsewhere the
                // collision is a break outside the markers (mixed or semantic, capped at
                // a quarter of a run): only some of those are tried.
                let local = refactor.kind.renames_in_function() || refactor.kind.rewrites() == Some(Rewrites::Block);
                if local || beside_a_use(workspace.tree, feature, refactor) || one_in_four(refactor, feature) {
                    out.push(recipe(input, NAME, vec![(*feature).clone()], vec![refactor.clone()]));
                    singles.push((feature, refactor));
                }
            }
            // Two features using the name, on one side: the refactor reaches both.
            if let Some((a, b)) = first_independent_pair(&users) {
                out.push(recipe(input, NAME, vec![a, b], vec![refactor.clone()]));
            }
        }
        out.extend(crossed(&singles).into_iter().map(|(first, second)| recipe(input, NAME, first, second)));
        out
    }
}

/// How many later pairs each pair is crossed with.
pub(super) const CROSSINGS: usize = 4;

/// The crossed tasks: each pair `(feature, refactor)` with the next [`CROSSINGS`] pairs
/// (in the order found) whose feature lives in another file, the first side adding the
/// first feature and making the second refactor, the other side the reverse. (A later
/// pair is never crossed back with an earlier one: that task would be the same with
/// sides swapped.)
fn crossed(singles: &[(&Site, &Site)]) -> Vec<(Vec<Site>, Vec<Site>)> {
    singles.iter().enumerate().flat_map(|(i, a)| crossings(*a, &singles[i + 1..])).collect()
}

/// The pair `a` crossed with the first [`CROSSINGS`] pairs of `later` it can be crossed
/// with (features in different files, neither change reaching the other's feature): the
/// first side adds `a`'s feature and makes the later pair's change, the second side the
/// reverse.
pub(super) fn crossings(a: (&Site, &Site), later: &[(&Site, &Site)]) -> Vec<(Vec<Site>, Vec<Site>)> {
    let apart = |(f, r): (&Site, &Site), (g, q): (&Site, &Site)| {
        f.path != g.path && independent(f, g) && r.symbol != q.symbol && !uses(f, q) && !uses(g, r)
    };
    later
        .iter()
        .filter(|b| apart(a, **b))
        .take(CROSSINGS)
        .map(|b| (vec![a.0.clone(), b.1.clone()], vec![b.0.clone(), a.1.clone()]))
        .collect()
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

/// A task of `family` whose first side makes `first` and the second `second` (each
/// some features and refactors or contract changes): base lacks every feature, a side is
/// HEAD without the other side's features and with its own changes, gold is HEAD with
/// every change.
pub(super) fn recipe<'a>(input: &ForgeInput<'a>, family: &str, first: Vec<Site>, second: Vec<Site>) -> Recipe<'a> {
    let keys = |sites: &[Site]| sites.iter().map(Site::key).collect::<Vec<_>>().join("|");
    let key = match second.as_slice() {
        // A feature against a refactor keeps the key it always had (the order of candidates).
        [refactor] if !refactor.kind.is_feature() => format!("{family}|{}|{}", keys(&first), refactor.key()),
        _ => format!("{family}|{}|/|{}", keys(&first), keys(&second)),
    };
    let workspace = input.workspace();
    let seed = input.seed;
    Recipe {
        key: key.clone(),
        kinds: first.iter().chain(&second).map(|s| s.kind).collect(),
        build: Box::new(move || {
            Sides { summary: summary(&first, &second), key: key.clone(), first: first.clone(), second: second.clone() }
                .propose(&workspace, seed)
        }),
    }
}

/// One line for the maintainers: what each side makes and how gold combines them.
fn summary(first: &[Site], second: &[Site]) -> String {
    match second {
        [refactor] if !refactor.kind.is_feature() => format!(
            "one side adds {} using `{}`; the other makes `{}` ({}); gold writes the new code against the refactor",
            listed(first),
            refactor.symbol,
            refactor.message(),
            refactor.kind
        ),
        _ => {
            // A contract change is not a refactor: crossed feature-contract tasks say so.
            let contract = first.iter().chain(second).any(|s| s.kind.contract().is_some());
            let change = if contract { "change" } else { "refactor" };
            format!(
                "one side makes {}, the other {}; each side's feature uses a name the other side's {change} rewrites, so gold writes both features against the {change}s",
                listed(first),
                listed(second)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::integrate::site_in as site;
    use super::*;

    #[test]
    fn crossed_tasks_give_each_side_a_feature_and_the_refactor_the_other_collides_with() {
        let guard = site(Kind::Branch, "pkg/a.py", "parse#guard1", &["parse.text"]);
        let rename_text = site(Kind::RenameParam, "pkg/a.py", "parse.text", &["parse"]);
        let elif = site(Kind::Branch, "pkg/b.py", "render#elif1", &["render.width"]);
        let rename_width = site(Kind::RenameLocal, "pkg/b.py", "render.width", &["render"]);
        let other_guard = site(Kind::Branch, "pkg/a.py", "parse#guard2", &["parse.text"]);
        let singles = [(&guard, &rename_text), (&elif, &rename_width), (&other_guard, &rename_text)];
        let crossed = crossed(&singles);
        // The first pair crosses with the second (another file), the second with the
        // third; the third has no later pair, and no pair crosses back.
        assert_eq!(
            crossed,
            vec![
                (vec![guard.clone(), rename_width.clone()], vec![elif.clone(), rename_text.clone()]),
                (vec![elif.clone(), rename_text.clone()], vec![other_guard.clone(), rename_width.clone()]),
            ]
        );
        // Two pairs in one file, or with one refactor, never cross.
        assert!(super::crossed(&[(&guard, &rename_text), (&other_guard, &rename_text)]).is_empty());
        assert!(super::crossed(&[(&guard, &rename_text), (&elif, &rename_text)]).is_empty());
    }
}
