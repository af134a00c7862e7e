//! Branch-scale tasks: several (feature, change) pairs dealt across two branches.
//!
//! A pair is a feature (a function, a method or a branch with its tests) and a change (a
//! refactor or a contract change) of a name the feature's code uses. Dealing `k`
//! compatible pairs gives the first branch the features of the even pairs and the
//! changes of the odd ones, the second branch the rest: each branch makes `k` intents,
//! one commit each, and every change reaches new code of the other branch. The
//! interaction graph is the plan, not luck; gold applies every change to every new line.
//!
//! Variety: a pair joins at most [`PAIR_USES`] tasks and an intent at most
//! [`INTENT_USES`] of the tasks one family deals from a substrate.

use std::collections::BTreeMap;

use super::integrate::{independent, uses};
use crate::difficulty::Scale;
use crate::forge::proposal::ForgeInput;
use crate::intent::Kind;
use crate::intent::Site;

/// A feature and a change whose name the feature's code uses.
pub(super) type Pair<'s> = (&'s Site, &'s Site);

/// Tasks one pair may join.
const PAIR_USES: usize = 2;
/// Tasks one intent may join.
const INTENT_USES: usize = 3;

/// Every (feature, change) pair of `input` whose change is of `kinds`: the change's
/// sites in catalogue order, each with the features (in the order given) whose code
/// uses a name it rewrites.
pub(super) fn pairs<'a>(input: &ForgeInput<'a>, features: &[&'a Site], kinds: Vec<Kind>) -> Vec<Pair<'a>> {
    kinds
        .into_iter()
        .flat_map(|kind| input.sites(kind))
        .flat_map(|change| features.iter().filter(|f| uses(f, change)).map(move |f| (*f, change)))
        .collect()
}

/// How many pairs a task of `scale` deals (each branch makes as many intents): `None`
/// for small tasks, which families make pair by pair.
pub(super) fn pairs_for(scale: Scale) -> Option<usize> {
    match scale {
        Scale::Small => None,
        Scale::Medium => Some(3),
        Scale::Large => Some(6),
    }
}

/// The tasks dealt from `pairs` (in the order found) with `k` pairs each: from each of
/// the first `starts` pairs in turn, the later pairs (wrapping round) that are compatible
/// with every one chosen, skipping pairs and intents already used up; each as (first
/// branch, second branch).
pub(super) fn dealt(pairs: &[Pair], starts: usize, k: usize) -> Vec<(Vec<Site>, Vec<Site>)> {
    let mut pair_uses: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut intent_uses: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for i in 0..starts.min(pairs.len()) {
        let free = |p: &Pair, pair_uses: &BTreeMap<(String, String), usize>, intent_uses: &BTreeMap<String, usize>| {
            pair_uses.get(&pair_key(p)).copied().unwrap_or(0) < PAIR_USES
                && [p.0, p.1].iter().all(|s| intent_uses.get(&s.key()).copied().unwrap_or(0) < INTENT_USES)
        };
        // A task starts from its own pair (a contract family's from a contract change).
        if !free(&pairs[i], &pair_uses, &intent_uses) {
            continue;
        }
        let mut chosen: Vec<Pair> = Vec::with_capacity(k);
        for p in pairs[i..].iter().chain(&pairs[..i]) {
            if chosen.len() == k {
                break;
            }
            if free(p, &pair_uses, &intent_uses) && chosen.iter().all(|q| compatible(*q, *p)) {
                chosen.push(*p);
            }
        }
        if chosen.len() < k {
            continue;
        }
        for p in &chosen {
            *pair_uses.entry(pair_key(p)).or_default() += 1;
            for s in [p.0, p.1] {
                *intent_uses.entry(s.key()).or_default() += 1;
            }
        }
        out.push(deal(&chosen));
    }
    out
}

fn pair_key(p: &Pair) -> (String, String) {
    (p.0.key(), p.1.key())
}

/// The two branches of `chosen`: pair `j`'s feature on the first when `j` is even, its
/// change on the other, each branch's intents in pair order.
fn deal(chosen: &[Pair]) -> (Vec<Site>, Vec<Site>) {
    let mut first = Vec::with_capacity(chosen.len());
    let mut second = Vec::with_capacity(chosen.len());
    for (j, (feature, change)) in chosen.iter().enumerate() {
        let (to_feature, to_change) = if j % 2 == 0 { (&mut first, &mut second) } else { (&mut second, &mut first) };
        to_feature.push((*feature).clone());
        to_change.push((*change).clone());
    }
    (first, second)
}

/// Whether two pairs can be dealt into one task: features that different developers
/// could add, different changes, and neither change made to the other pair's feature
/// itself (that feature exists on one branch only). Changes of one unit (two locals of
/// a function renamed, a parameter renamed and the signature reordered) may meet: every
/// tree takes the features out of HEAD before it makes the changes, and validation
/// drops what does not hold.
fn compatible((f, r): Pair, (g, s): Pair) -> bool {
    independent(f, g) && r.key() != s.key() && r.symbol != s.symbol && f.symbol != unit(s) && g.symbol != unit(r)
}

/// The unit a change is about: a renamed local's or parameter's function, else its
/// symbol.
fn unit(site: &Site) -> &str {
    match site.kind.renames_in_function() {
        true => site.symbol.rsplit_once('.').map_or(site.symbol.as_str(), |(function, _)| function),
        false => &site.symbol,
    }
}

#[cfg(test)]
mod tests {
    use super::super::integrate::site_in as site;
    use super::*;

    #[test]
    fn pairs_are_dealt_alternately_one_branch_each() {
        let f1 = site(Kind::AddFunction, "pkg/a.py", "total", &["helper"]);
        let c1 = site(Kind::Rename, "pkg/b.py", "helper", &["helper"]);
        let f2 = site(Kind::Branch, "pkg/c.py", "parse#elif1", &["parse.text"]);
        let c2 = site(Kind::RenameParam, "pkg/c.py", "parse.text", &["parse"]);
        let f3 = site(Kind::AddFunction, "pkg/d.py", "render", &["fmt"]);
        let c3 = site(Kind::ReorderParams, "pkg/e.py", "fmt", &["fmt"]);
        let pairs = [(&f1, &c1), (&f2, &c2), (&f3, &c3)];
        let tasks = dealt(&pairs, pairs.len(), 3);
        let (first, second) = &tasks[0];
        assert_eq!(first, &vec![f1.clone(), c2.clone(), f3.clone()]);
        assert_eq!(second, &vec![c1.clone(), f2.clone(), c3.clone()]);
        // Every change reaches the other branch's feature of its pair.
        let edges: Vec<(usize, String, String)> = super::super::integrate::interactions(first, second)
            .into_iter()
            .map(|(b, c, f)| (b, c.symbol, f.symbol))
            .collect();
        assert_eq!(
            edges,
            vec![
                (0, "parse.text".to_string(), "parse#elif1".to_string()),
                (1, "helper".to_string(), "total".to_string()),
                (1, "fmt".to_string(), "render".to_string()),
            ]
        );
    }

    #[test]
    fn a_change_of_the_other_pairs_feature_itself_is_not_dealt_with_it() {
        let f1 = site(Kind::Branch, "pkg/c.py", "parse#elif1", &["parse.text"]);
        let c1 = site(Kind::RenameParam, "pkg/c.py", "parse.text", &["parse"]);
        let f2 = site(Kind::Branch, "pkg/c.py", "parse#else1", &["parse.pos"]);
        let c2 = site(Kind::RenameLocal, "pkg/c.py", "parse.pos", &["parse"]);
        // Two changes of one function's names may meet.
        assert!(compatible((&f1, &c1), (&f2, &c2)));
        // Not one change twice, nor a change that renames the other pair's feature.
        assert!(!compatible((&f1, &c1), (&f2, &c1)));
        let f3 = site(Kind::AddFunction, "pkg/d.py", "render", &["fmt"]);
        let c3 = site(Kind::Rename, "pkg/d.py", "fmt", &["fmt"]);
        let f4 = site(Kind::AddFunction, "pkg/e.py", "fmt_all", &["fmt"]);
        let c4 = site(Kind::Rename, "pkg/d.py", "render", &["render"]);
        assert!(!compatible((&f3, &c3), (&f4, &c4)));
        assert!(compatible((&f1, &c1), (&f3, &c3)));
    }

    #[test]
    fn a_pair_joins_at_most_two_tasks() {
        let sites: Vec<(Site, Site)> = (0..6)
            .map(|i| {
                let name = format!("unit{i}");
                (
                    site(Kind::AddFunction, &format!("pkg/f{i}.py"), &format!("feature{i}"), &[&name]),
                    site(Kind::Rename, &format!("pkg/u{i}.py"), &name, &[&name]),
                )
            })
            .collect();
        let pairs: Vec<Pair> = sites.iter().map(|(f, c)| (f, c)).collect();
        let tasks = dealt(&pairs, pairs.len(), 3);
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        for (first, second) in &tasks {
            for s in first.iter().chain(second).filter(|s| s.kind.is_feature()) {
                *counts.entry(s.symbol.clone()).or_default() += 1;
            }
        }
        assert!(tasks.len() >= 3, "{tasks:?}");
        assert!(counts.values().all(|n| *n <= PAIR_USES), "{counts:?}");
    }
}
