//! What the integration families (feature-feature, feature-refactor, move-edit) share:
//! trees made by applying intents, the cheap checks that a pair of sides can collide,
//! and the proposal of two sides that each make their own intents.
//!
//! An integration proposal has a working base; each side is a valid change (a feature
//! with its tests, a refactor) and passes its own suite; gold makes both changes.

use crate::forge::proposal::{seeded_coin, Intent, Proposal};
use crate::intent::{Rewrites, Site, Workspace};
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
    let paths: std::collections::BTreeSet<&String> = base.keys().chain(ours.keys()).chain(theirs.keys()).collect();
    paths.into_iter().any(|path| changed(ours, path) && changed(theirs, path))
}

/// Whether `second` follows `first` in the same file of `tree` with nothing between
/// them but blank lines and comments (neighbouring units: two developers adding them
/// insert at the same place).
pub(super) fn neighbours(tree: &Snapshot, first: &Site, second: &Site) -> bool {
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
/// needed by both, neither using the other.
pub(super) fn independent(a: &Site, b: &Site) -> bool {
    let last = |site: &Site| site.symbol.rsplit('.').next().unwrap_or_default().to_string();
    a.symbol != b.symbol
        && !a.tests.iter().any(|t| b.tests.contains(t))
        && !a.uses.contains(&last(b))
        && !b.uses.contains(&last(a))
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
    let reads = |name: &String| match refactor.kind.rewrites() {
        Some(Rewrites::Method) => feature.uses.contains(&format!(".{name}")),
        _ => feature.uses.contains(name),
    };
    feature.symbol != refactor.symbol && refactor.uses.iter().any(reads)
}

/// The four trees of an integration task and the intents of its two sides, before the
/// seeded coin decides which side is `ours`.
pub(super) struct Sides {
    pub(crate) key: String,
    pub(crate) base: Snapshot,
    pub(crate) first: (Snapshot, Vec<Site>),
    pub(crate) second: (Snapshot, Vec<Site>),
    pub(crate) gold: Snapshot,
    pub(crate) summary: String,
}

impl Sides {
    /// The proposal, sides placed by a seeded coin on the key; `None` when the sides
    /// cannot collide (no file edited by both) or a side equals base or gold.
    pub(super) fn propose(self, seed: u64) -> Option<Proposal> {
        let Sides { key, base, first, second, gold, summary } = self;
        if !both_edit_a_file(&base, &first.0, &second.0) || first.0 == gold || second.0 == gold {
            return None;
        }
        let (ours, theirs) = if seeded_coin(seed, &key) { (first, second) } else { (second, first) };
        Some(Proposal {
            key,
            base,
            ours: ours.0,
            theirs: theirs.0,
            gold,
            mutations: Vec::new(),
            summary,
            ours_intent: Intent::making(ours.1),
            theirs_intent: Intent::making(theirs.1),
            origin: None,
        })
    }
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
}
