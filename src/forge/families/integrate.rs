//! What the integration families (feature-feature, feature-refactor, move-edit) share:
//! trees made by applying intents, the cheap checks that a pair of sides can collide,
//! and the proposal of two sides that each make their own intents.
//!
//! An integration proposal has a working base; each side is a valid change (a feature
//! with its tests, a refactor) and passes its own suite; gold makes both changes.

use std::collections::BTreeSet;

use crate::forge::proposal::{seeded_coin, Intent, Interaction, Proposal};
use crate::intent::{folder, suite, Kind, Rewrites, Site, Workspace};
use crate::snapshot::{self, Snapshot};

/// `tree` with every site applied in order (features taken out, refactors made);
/// `None` if one does not apply.
pub(super) fn applied(workspace: &Workspace, tree: &Snapshot, sites: &[&Site]) -> Option<Snapshot> {
    let mut out = tree.clone();
    for site in sites {
        out = site.apply(workspace, &out)?;
    }
    Some(out)
}

/// Whether some file differs from `base` in both `ours` and `theirs`: without one,
/// git merges the sides without a conflict.
pub(super) fn both_edit_a_file(base: &Snapshot, ours: &Snapshot, theirs: &Snapshot) -> bool {
    let changed = |side: &Snapshot, path: &String| base.get(path) != side.get(path);
    snapshot::paths_of(base, ours, theirs).into_iter().any(|path| changed(ours, path) && changed(theirs, path))
}

/// Whether `second` follows `first` in the same file of `tree` with nothing between
/// them but blank lines and comments (neighbouring units: two developers adding them
/// insert at the same place).
pub(super) fn neighbours(tree: &Snapshot, first: &Site, second: &Site) -> bool {
    // Two modules of one package meet where its `__init__.py` exports them.
    if first.kind == Kind::AddModule || second.kind == Kind::AddModule {
        return first.kind == second.kind && first.path < second.path && folder(&first.path) == folder(&second.path);
    }
    if first.path != second.path || first.lines.end > second.lines.start {
        return false;
    }
    let Some(text) = snapshot::text_of(tree, &first.path) else { return false };
    text.lines()
        .skip(first.lines.end.saturating_sub(1))
        .take(second.lines.start - first.lines.end)
        .all(|line| line.trim().is_empty() || line.trim_start().starts_with('#'))
}

/// Whether two features can be added by different developers: different units, no test
/// needed by both (unless their kind shares tests line by line), neither using the other.
pub(super) fn independent(a: &Site, b: &Site) -> bool {
    let last = |site: &Site| site.symbol.rsplit('.').next().unwrap_or_default().to_string();
    a.symbol != b.symbol
        && (shared_tests(a, b).next().is_none() || (a.kind == b.kind && a.kind.shares_tests()))
        && !a.uses.contains(&last(b))
        && !b.uses.contains(&last(a))
}

/// The tests both sites need.
fn shared_tests<'a>(a: &'a Site, b: &'a Site) -> impl Iterator<Item = &'a String> {
    a.tests.iter().filter(|t| b.tests.contains(t))
}

/// The features among `sites`.
fn features(sites: &[Site]) -> impl Iterator<Item = &Site> {
    sites.iter().filter(|s| s.kind.is_feature())
}

/// Whether every test that a feature of one side shares with a feature of the other is
/// in both sides' trees (each side adds its own lines to it; a test taken out whole by
/// either would be in gold alone, which no side derives).
fn shared_tests_kept(first: &[Site], second: &[Site], trees: (&Snapshot, &Snapshot)) -> bool {
    let shared: BTreeSet<&String> =
        features(first).flat_map(|a| features(second).flat_map(move |b| shared_tests(a, b))).collect();
    if shared.is_empty() {
        return true;
    }
    let (ids_first, ids_second) = (suite::test_ids(trees.0), suite::test_ids(trees.1));
    shared.iter().all(|id| {
        let id = suite::without_params(id);
        ids_first.contains(id) && ids_second.contains(id)
    })
}

/// The first two sites of `users` (in order) that different developers could add: the
/// features of a task whose one side adds both.
pub(super) fn first_independent_pair(users: &[&Site]) -> Option<(Site, Site)> {
    users
        .iter()
        .enumerate()
        .find_map(|(i, a)| users[i + 1..].iter().find(|b| independent(a, b)).map(|b| ((*a).clone(), (*b).clone())))
}

/// Whether `feature`'s code uses a name `refactor` rewrites (and is not its subject): for
/// a renamed local or parameter, whether it reads it (`func.local` among its uses); for
/// a renamed method, whether it reads it on `self` or `cls` (`.method`).
pub(super) fn uses(feature: &Site, refactor: &Site) -> bool {
    if refactor.kind.renames_in_function() {
        return feature.uses.contains(&refactor.symbol);
    }
    if refactor.kind.rewrites() == Some(Rewrites::Block) {
        return in_or_beside(feature, refactor);
    }
    let reads = |name: &String| match refactor.kind.rewrites() {
        Some(Rewrites::Method) => feature.uses.contains(&format!(".{name}")),
        _ => feature.uses.contains(name),
    };
    feature.symbol != refactor.symbol && refactor.uses.iter().any(reads)
}

/// Whether `feature` is a part of the function `block` extracts from (a branch,
/// `func#elif1`) whose lines lie inside the extracted run or touch it: added there, its
/// lines belong in the helper (inside) or collide with the call (beside).
fn in_or_beside(feature: &Site, block: &Site) -> bool {
    let function = feature.symbol.split_once('#').map(|(function, _)| function);
    feature.path == block.path
        && function == Some(block.symbol.as_str())
        && feature.lines.start <= block.lines.end
        && block.lines.start <= feature.lines.end
}

/// The two sides of an integration task, each the intents it makes in order (features
/// with their tests, refactors, contract changes), before the trees are made and the
/// seeded coin decides which side is `ours`.
///
/// Every tree follows from HEAD: base lacks every feature; a side's commit `k` is HEAD
/// without the other side's features and without its own features after `k`, with its
/// own refactors up to `k` made (its last commit is the side); gold is HEAD with every
/// refactor made.
pub(super) struct Sides {
    pub(crate) key: String,
    pub(crate) first: Vec<Site>,
    pub(crate) second: Vec<Site>,
    pub(crate) summary: String,
}

impl Sides {
    /// The proposal, sides placed by a seeded coin on the key; `None` when a site does
    /// not apply, a commit changes nothing, the sides cannot collide (no file edited by
    /// both) or a side equals gold.
    pub(super) fn propose(self, workspace: &Workspace, seed: u64) -> Option<Proposal> {
        let Sides { key, first, second, summary } = self;
        let head = workspace.tree;
        let (features, refactors): (Vec<&Site>, Vec<&Site>) =
            first.iter().chain(&second).partition(|s| s.kind.is_feature());
        let base = applied(workspace, head, &features)?;
        let gold = applied(workspace, head, &refactors)?;
        let mut first_trees = commits(workspace, &base, &first, &second)?;
        let mut second_trees = commits(workspace, &base, &second, &first)?;
        let (first_tree, second_tree) = (first_trees.pop()?, second_trees.pop()?);
        if !both_edit_a_file(&base, &first_tree, &second_tree)
            || first_tree == gold
            || second_tree == gold
            || !shared_tests_kept(&first, &second, (&first_tree, &second_tree))
        {
            return None;
        }
        let first_is_ours = seeded_coin(seed, &key);
        // The edges of a task whose branches make several intents each are witnessed.
        let witnessed = first.len() > 1 && second.len() > 1;
        let interactions = interactions(&first, &second)
            .into_iter()
            .map(|(branch, change, feature)| {
                let reverted = witnessed.then(|| reverted(workspace, &gold, &refactors, &change, &feature)).flatten();
                Interaction { ours: (branch == 0) == first_is_ours, change, feature, reverted }
            })
            .collect();
        let first = (first_tree, Intent::making(first, first_trees));
        let second = (second_tree, Intent::making(second, second_trees));
        let (ours, theirs) = if first_is_ours { (first, second) } else { (second, first) };
        Some(Proposal {
            key,
            base,
            ours: ours.0,
            theirs: theirs.0,
            gold,
            mutations: Vec::new(),
            summary,
            ours_intent: ours.1,
            theirs_intent: theirs.1,
            origin: None,
            interactions,
        })
    }
}

/// Gold with one adaptation reverted: the lines `feature` inserts in gold replaced by
/// those it inserts when written without `change` (every other change made), file by
/// file (lines the feature's removal edits rather than inserts, such as an import list,
/// stay gold's). `None` when a site does not apply, the feature's hunks do not line up
/// between the two trees, or nothing is reverted.
fn reverted(
    workspace: &Workspace,
    gold: &Snapshot,
    changes: &[&Site],
    change: &Site,
    feature: &Site,
) -> Option<Snapshot> {
    let others: Vec<&Site> = changes.iter().copied().filter(|c| *c != change).collect();
    let unchanged = applied(workspace, workspace.tree, &others)?;
    // Without the feature: taken out of HEAD first, as every tree of a task is made (a
    // branch is found by its header, which a change may rewrite).
    let head_without = feature.apply(workspace, workspace.tree)?;
    let unchanged_without = applied(workspace, &head_without, &others)?;
    let gold_without = applied(workspace, &head_without, changes)?;
    let mut out = gold.clone();
    for (path, text) in unchanged.iter() {
        if unchanged_without.get(path) == Some(text) {
            continue;
        }
        let text_of = |tree: &Snapshot| snapshot::text_of(tree, path).map(str::to_string);
        let old = (text_of(&unchanged_without).unwrap_or_default(), text_of(&unchanged)?);
        let new = (text_of(&gold_without).unwrap_or_default(), text_of(gold)?);
        out = snapshot::with_file(&out, path, &transplant(&old, &new)?);
    }
    (out != *gold).then_some(out)
}

/// `new.1` with each block of lines it inserts into `new.0` replaced by the block `old.1`
/// inserts into `old.0` at the same hunk; `None` unless both differences have as many
/// hunks, each an insertion in both or in neither.
fn transplant(old: &(String, String), new: &(String, String)) -> Option<String> {
    let old_hunks = hunks(&old.0, &old.1)?;
    let new_hunks = hunks(&new.0, &new.1)?;
    if old_hunks.len() != new_hunks.len() || old_hunks.iter().zip(&new_hunks).any(|(a, b)| a.0 != b.0) {
        return None;
    }
    let old_lines: Vec<&str> = old.1.split_inclusive('\n').collect();
    let mut lines: Vec<&str> = new.1.split_inclusive('\n').collect();
    for ((inserts, from), (_, to)) in old_hunks.iter().zip(&new_hunks).rev() {
        if *inserts {
            lines.splice(to.clone(), old_lines.get(from.clone())?.iter().copied());
        }
    }
    Some(lines.concat())
}

/// The hunks of `without` → `with`: whether each only inserts lines, and its 0-based
/// line range in `with`.
fn hunks(without: &str, with: &str) -> Option<Vec<(bool, std::ops::Range<usize>)>> {
    let mut options = git2::DiffOptions::new();
    options.context_lines(0).patience(true);
    let patch = git2::Patch::from_buffers(without.as_bytes(), None, with.as_bytes(), None, Some(&mut options)).ok()?;
    (0..patch.num_hunks())
        .map(|i| {
            let (hunk, _) = patch.hunk(i).ok()?;
            let start = hunk.new_start().saturating_sub(1) as usize;
            Some((hunk.old_lines() == 0, start..start + hunk.new_lines() as usize))
        })
        .collect()
}

/// Every interaction of two branches: a change of one branch and a feature of the other
/// whose code uses a name the change rewrites, as (branch of the change, `0` for
/// `first`; the change; the feature).
pub(super) fn interactions(first: &[Site], second: &[Site]) -> Vec<(usize, Site, Site)> {
    let edges = |changes: &[Site], features: &[Site], branch: usize| {
        changes
            .iter()
            .filter(|c| !c.kind.is_feature())
            .flat_map(|c| {
                features
                    .iter()
                    .filter(|f| f.kind.is_feature() && uses(f, c))
                    .map(move |f| (branch, c.clone(), f.clone()))
            })
            .collect::<Vec<_>>()
    };
    let mut out = edges(first, second, 0);
    out.extend(edges(second, first, 1));
    out
}

/// The trees of a side's commits, one per site of `own` in order (the last is the
/// side): `None` when a site does not apply or a commit would change nothing.
fn commits(workspace: &Workspace, base: &Snapshot, own: &[Site], other: &[Site]) -> Option<Vec<Snapshot>> {
    let head = workspace.tree;
    let mut trees: Vec<Snapshot> = Vec::with_capacity(own.len());
    for k in 1..=own.len() {
        let taken: Vec<&Site> = other.iter().chain(&own[k..]).filter(|s| s.kind.is_feature()).collect();
        let made: Vec<&Site> = own[..k].iter().filter(|s| !s.kind.is_feature()).collect();
        let tree = applied(workspace, &applied(workspace, head, &taken)?, &made)?;
        if &tree == trees.last().unwrap_or(base) {
            return None;
        }
        trees.push(tree);
    }
    Some(trees)
}

/// `a`, `b` and `c` as a list for a summary: "`a`, `b` and `c`".
pub(super) fn listed(sites: &[Site]) -> String {
    let names: Vec<String> = sites.iter().map(|s| format!("`{}`", s.symbol)).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// A site of `kind` in `path` for the families' tests: `symbol` using `uses`, no tests.
#[cfg(test)]
pub(super) fn site_in(kind: crate::intent::Kind, path: &str, symbol: &str, uses: &[&str]) -> Site {
    Site {
        kind,
        path: path.into(),
        symbol: symbol.into(),
        lines: 1..2,
        uses: uses.iter().map(|s| s.to_string()).collect(),
        target: None,
        tests: Vec::new(),
    }
}

/// [`site_in`] in `pkg/mod.py`, the one module of most of the families' test cases.
#[cfg(test)]
pub(super) fn site(kind: crate::intent::Kind, symbol: &str, uses: &[&str]) -> Site {
    site_in(kind, "pkg/mod.py", symbol, uses)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::intent::Kind;

    #[test]
    fn a_branch_meets_an_extraction_of_its_function_inside_or_next_to_the_run() {
        let at = |kind: Kind, symbol: &str, lines: std::ops::Range<usize>| Site {
            lines,
            ..site_in(kind, "pkg/a.py", symbol, &["parse"])
        };
        let run = at(Kind::ExtractHelper, "parse", 10..15);
        assert!(uses(&at(Kind::Branch, "parse#elif1", 11..13), &run));
        assert!(uses(&at(Kind::Branch, "parse#guard1", 8..10), &run));
        assert!(uses(&at(Kind::Branch, "parse#else1", 15..17), &run));
        assert!(!uses(&at(Kind::Branch, "parse#guard2", 3..5), &run));
        assert!(!uses(&at(Kind::Branch, "render#elif1", 11..13), &run));
        // A feature that is a whole unit is never part of the function.
        assert!(!uses(&at(Kind::AddFunction, "parse", 10..15), &run));
    }

    #[test]
    fn a_feature_written_against_the_old_name_is_transplanted_into_gold() {
        let old =
            ("def a():\n    pass\n".to_string(), "def a():\n    pass\n\ndef f():\n    return helper()\n".to_string());
        let new =
            ("def a():\n    pass\n".to_string(), "def a():\n    pass\n\ndef f():\n    return assist()\n".to_string());
        assert_eq!(transplant(&old, &new).as_deref(), Some("def a():\n    pass\n\ndef f():\n    return helper()\n"));
        // A line the feature edits rather than inserts (an import list) stays gold's.
        let old = (
            "from u import a\nX = 1\n".to_string(),
            "from u import a, f\nX = 1\n\ndef g():\n    return helper()\n".to_string(),
        );
        let new = (
            "from u import b\nX = 1\n".to_string(),
            "from u import b, f\nX = 1\n\ndef g():\n    return assist()\n".to_string(),
        );
        assert_eq!(
            transplant(&old, &new).as_deref(),
            Some("from u import b, f\nX = 1\n\ndef g():\n    return helper()\n")
        );
        // Hunks that do not line up give no tree.
        let inserted = ("x = 1\n".to_string(), "x = 1\ny = 2\n".to_string());
        let edited = ("x = 1\n".to_string(), "x = 2\n".to_string());
        assert_eq!(transplant(&inserted, &edited), None);
    }

    #[test]
    fn a_feature_uses_what_its_code_reads_in_the_refactors_own_terms() {
        let branch = site(Kind::Branch, "Parser.parse#elif1", &["Parser.parse.text", "tokenize", "._advance"]);
        // A renamed local or parameter: the feature reads `function.name`.
        assert!(uses(&branch, &site(Kind::RenameParam, "Parser.parse.text", &["Parser.parse"])));
        assert!(!uses(&branch, &site(Kind::RenameLocal, "Parser.parse.pos", &["Parser.parse"])));
        // A module-level name it calls.
        assert!(uses(&branch, &site(Kind::Rename, "tokenize", &["tokenize"])));
        // A method: only when read on `self`/`cls`, not a module-level name of that spelling.
        assert!(uses(&branch, &site(Kind::RenameMethod, "Parser._advance", &["_advance"])));
        assert!(!uses(&branch, &site(Kind::Rename, "_advance", &["_advance"])));
        assert!(!uses(&branch, &site(Kind::RenameMethod, "Lexer.tokenize", &["tokenize"])));
    }

    #[test]
    fn features_share_a_test_only_where_their_kind_takes_it_out_line_by_line() {
        let with_test = |kind, symbol: &str| Site {
            tests: vec!["tests/test_c.py::test_codes".to_string()],
            ..site(kind, symbol, &["Fore"])
        };
        assert!(independent(&with_test(Kind::DictEntry, "Fore.RED"), &with_test(Kind::DictEntry, "Fore.GREEN")));
        assert!(!independent(&with_test(Kind::Branch, "f#if1"), &with_test(Kind::Branch, "g#if1")));
        assert!(!independent(&with_test(Kind::DictEntry, "Fore.RED"), &with_test(Kind::Branch, "g#if1")));
    }
}
