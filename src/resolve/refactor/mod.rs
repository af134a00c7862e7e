//! `refactor`: a refactoring-aware merge, in the manner of operation-based merging
//! (RefMerge): find each side's renames and moves from its diff against base alone,
//! take them out of the way of the line merge, merge, and replay them over the merged
//! result, the other side's new lines included. Where lines still conflict once the
//! refactorings are out of the way (both sides inserting at one place), a Python file
//! gets the `structured` rung's merge, as a structured refactoring-aware merge
//! (IntelliMerge) would do.
//!
//! - [`detect`]: a side's refactorings, each proven by replaying it on base, and what
//!   it refuses (ambiguous or partial renames, moves it cannot reproduce);
//! - [`replay`]: a refactoring's site after others, and applying a list to a tree;
//! - [`align`]: the token-level comparisons both use.
//!
//! The replay uses the refactoring intents' own transforms (`crate::intent`: rename,
//! move, rename-local, rename-param, rename-method), which already carry every use
//! across files, imports included; they are the tool a developer would reach for.
//! The rung is tree-level ([`Resolver::resolve_tree`]): it reads base, ours and theirs,
//! never a task's recipe or solution. Any refusal, a replay that does not apply or a
//! merge that still conflicts leaves the conflicted tree as git made it.

pub(crate) mod align;
pub(crate) mod detect;
pub(crate) mod replay;

use super::resolver::{FileResolution, RecordKey, Resolver, ResolverFailure, Rung, TreeMerge, TreeResolution};
use crate::intent::Site;
use crate::snapshot::Snapshot;

/// The refactoring-aware resolver.
pub struct Refactor;

impl Resolver for Refactor {
    fn name(&self) -> &'static str {
        "refactor"
    }
    fn description(&self) -> &'static str {
        "Refactoring-aware merge of the whole tree: each side's renames (module-level names, classes, methods, parameters with their keyword call sites, locals) and moves of definitions between modules, detected from its diff against base alone, are replayed on base and on the other side, and the three trees merged line by line (a Python file whose lines still conflict by the structured merge); an ambiguous detection is refused and leaves the conflicts."
    }
    fn rung(&self) -> Rung {
        Rung::Medium
    }
    fn record_key(&self) -> RecordKey {
        RecordKey::Own("refactor")
    }
    fn agent(&self) -> Option<&'static str> {
        None
    }
    fn available(&self) -> bool {
        true
    }

    /// A single file carries no refactorings to detect: the rung needs the trees.
    fn resolve_file(&self, _path: &str, conflicted: &str) -> Result<FileResolution, ResolverFailure> {
        Ok(FileResolution::unresolved(conflicted))
    }

    fn resolve_tree(&self, merge: &TreeMerge) -> Result<TreeResolution, ResolverFailure> {
        Ok(match merged(merge) {
            Ok(tree) => TreeResolution { tree, unresolved: 0, notes: Vec::new() },
            Err(notes) => {
                let unresolved = merge
                    .conflicted_paths
                    .iter()
                    .filter_map(|p| crate::snapshot::text_of(merge.conflicted, p))
                    .map(crate::merge::markers::count_conflicts)
                    .sum();
                TreeResolution { tree: merge.conflicted.clone(), unresolved, notes }
            }
        })
    }
}

/// The refactoring-aware merge of `merge`'s three trees, or why there is none.
fn merged(merge: &TreeMerge) -> Result<Snapshot, Vec<String>> {
    let ours = detect::detect(merge.base, merge.ours, "ours");
    let theirs = detect::detect(merge.base, merge.theirs, "theirs");
    let mut refusals: Vec<String> = ours.refusals.into_iter().chain(theirs.refusals).collect();
    if !refusals.is_empty() {
        return Err(refusals);
    }
    if ours.sites.is_empty() && theirs.sites.is_empty() {
        return Err(vec!["no rename or move detected on either side".to_string()]);
    }
    let sides = match Sides::of(ours.sites, theirs.sites) {
        Ok(sides) => sides,
        Err(refusal) => return Err(vec![refusal]),
    };
    let replayed = sides.replayed(merge).map_err(|e| vec![e])?;
    let [base, ours, theirs] = &replayed;
    merge_trees(base, ours, theirs).map_err(|files| {
        refusals.push(format!("with the refactorings replayed, {} still conflict", files.join(", ")));
        refusals
    })
}

/// The three trees merged file by file: git's line merge, and where lines still
/// conflict in a Python file, the `structured` rung's merge of its three versions;
/// `Err` lists the files neither merges.
fn merge_trees(base: &Snapshot, ours: &Snapshot, theirs: &Snapshot) -> Result<Snapshot, Vec<String>> {
    let one = |t: &Snapshot, p: &String| t.get(p).map(|c| Snapshot::from([(p.clone(), c.clone())])).unwrap_or_default();
    let (mut out, mut failed) = (Snapshot::new(), Vec::new());
    for path in crate::snapshot::paths_of(base, ours, theirs) {
        if let Some(merged) = crate::snapshot::clean_merge(&one(base, path), &one(ours, path), &one(theirs, path)) {
            out.extend(merged);
            continue;
        }
        let text = crate::snapshot::text_of;
        let structured = match (text(base, path), text(ours, path), text(theirs, path)) {
            (Some(b), Some(o), Some(t)) if path.ends_with(".py") => super::structured::merge_python(b, o, t, path),
            _ => None,
        };
        match structured {
            Some(merged) => {
                out.insert(path.clone(), std::sync::Arc::from(merged.as_bytes()));
            }
            None => failed.push(path.clone()),
        }
    }
    match failed.is_empty() {
        true => Ok(out),
        false => Err(failed),
    }
}

/// Both sides' refactorings: those both made alike, and each side's own.
struct Sides {
    shared: Vec<Site>,
    ours: Vec<Site>,
    theirs: Vec<Site>,
}

impl Sides {
    /// `Err` when both sides refactor one thing differently (a rename to two names, a
    /// move to two modules).
    fn of(ours: Vec<Site>, theirs: Vec<Site>) -> Result<Sides, String> {
        let mut sides = Sides { shared: Vec::new(), ours: Vec::new(), theirs: Vec::new() };
        for o in ours {
            match theirs.iter().find(|t| o.kind == t.kind && o.path == t.path && o.symbol == t.symbol) {
                Some(t) if o.target == t.target => sides.shared.push(o),
                Some(t) => {
                    return Err(format!(
                        "both sides refactor `{}` in {}: ours {}, theirs {}",
                        o.symbol,
                        o.path,
                        replay::describe(&o),
                        replay::describe(t)
                    ))
                }
                None => sides.ours.push(o),
            }
        }
        sides.theirs = theirs.into_iter().filter(|t| !sides.shared.contains(t)).collect();
        for (side, site) in sides.ours.iter().map(|s| ("ours", s)).chain(sides.theirs.iter().map(|s| ("theirs", s))) {
            log::debug!("refactor: {side} {}", replay::describe(site));
        }
        Ok(sides)
    }

    /// Base with every refactoring, ours with theirs' own, theirs with ours' own (each
    /// in the form it takes after those the tree already has).
    fn replayed(&self, merge: &TreeMerge) -> Result<[Snapshot; 3], String> {
        let shared = replay::in_sequence(&self.shared, &[]);
        let ours = replay::in_sequence(&self.ours, &shared);
        let theirs_after_ours = replay::in_sequence(&self.theirs, &[shared.clone(), ours.clone()].concat());
        let all = [shared.clone(), ours, theirs_after_ours.clone()].concat();
        let base = replay::apply_all(merge.base, &all, "base")?;
        let on_ours = replay::apply_all(merge.ours, &theirs_after_ours, "ours")?;
        let theirs = replay::in_sequence(&self.theirs, &shared);
        let ours_after_theirs = replay::in_sequence(&self.ours, &[shared, theirs].concat());
        let on_theirs = replay::apply_all(merge.theirs, &ours_after_theirs, "theirs")?;
        Ok([base, on_ours, on_theirs])
    }
}
