//! Replaying detected refactorings on trees other than the one they were found on.
//!
//! A refactoring is found relative to base; replayed after others, its site follows
//! them ([`translated`]): after `f` is renamed `g`, a move of `f` moves `g`; after `f`
//! moves to module B, a rename of `f`'s parameter happens in B. The refactorings of
//! both sides are then replayed on base, each side's on the other side, and the three
//! results merged ([`super`]): the operation-based merge's undo–merge–replay, with the
//! undo folded into base (undoing a side's refactoring and merging is merging against a
//! base that has it).

use crate::intent::{Kind, Site, Workspace};
use crate::snapshot::Snapshot;

/// `site` as it reads after `through` was applied to the tree it refers to.
pub(crate) fn translate(site: &Site, through: &Site) -> Site {
    let mut out = site.clone();
    let Some(target) = through.target.as_deref() else { return out };
    let first = site.symbol.split('.').next().unwrap_or_default();
    let nested = site.symbol != first || site.kind == Kind::Move;
    match through.kind {
        // A module-level name renamed: what is defined under it, or the unit itself
        // when it moves, follows the new name.
        Kind::Rename if site.path == through.path && first == through.symbol && nested => {
            out.symbol = format!("{target}{}", &site.symbol[first.len()..]);
        }
        Kind::Move if site.path == through.path && first == through.symbol => out.path = target.to_string(),
        Kind::RenameMethod if site.path == through.path => {
            let prefix = format!("{}.", through.symbol);
            if let Some(rest) = site.symbol.strip_prefix(&prefix) {
                let class = through.symbol.rsplit_once('.').map_or("", |(c, _)| c);
                out.symbol = format!("{class}.{target}.{rest}");
            }
        }
        _ => {}
    }
    out
}

/// `site` after every one of `applied`, in order.
pub(crate) fn translated(site: &Site, applied: &[Site]) -> Site {
    applied.iter().fold(site.clone(), |s, t| translate(&s, t))
}

/// The refactorings of `sites` (each relative to the tree before the whole list) in the
/// form they take when applied one after another, after `before`.
pub(crate) fn in_sequence(sites: &[Site], before: &[Site]) -> Vec<Site> {
    let mut applied: Vec<Site> = before.to_vec();
    for site in sites {
        applied.push(translated(site, &applied));
    }
    applied.split_off(before.len())
}

/// `tree` with each of `sites` applied in order; `Err` names the first that does not
/// apply (`on`: which tree, for the message).
pub(crate) fn apply_all(tree: &Snapshot, sites: &[Site], on: &str) -> Result<Snapshot, String> {
    let workspace = Workspace { tree, modules: &[], coverage: None, probe: None };
    let mut out = tree.clone();
    for site in sites {
        out = site.apply(&workspace, &out).ok_or_else(|| format!("{} does not apply to {on}", describe(site)))?;
    }
    Ok(out)
}

/// A refactoring in one phrase: "rename-param `f.x` → `y` in a.py".
pub(crate) fn describe(site: &Site) -> String {
    format!("{} `{}` → `{}` in {}", site.kind, site.symbol, site.target.as_deref().unwrap_or_default(), site.path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(kind: Kind, path: &str, symbol: &str, target: &str) -> Site {
        Site {
            kind,
            path: path.into(),
            symbol: symbol.into(),
            lines: 0..0,
            uses: Default::default(),
            target: Some(target.into()),
            tests: Vec::new(),
        }
    }

    #[test]
    fn sites_follow_renames_and_moves() {
        let rename = site(Kind::Rename, "a.py", "f", "g");
        let moved = site(Kind::Move, "a.py", "f", "b.py");
        let param = site(Kind::RenameParam, "a.py", "f.x", "y");
        assert_eq!(translate(&moved, &rename).symbol, "g");
        assert_eq!(translate(&param, &rename).symbol, "g.x");
        assert_eq!(translate(&rename, &moved).path, "b.py");
        assert_eq!(translated(&param, &[rename.clone(), translate(&moved, &rename)]).path, "b.py");
        let other = site(Kind::Rename, "a.py", "ff", "h");
        assert_eq!(translate(&other, &rename), other, "a longer name is another name");
        let method = site(Kind::RenameMethod, "a.py", "C.m", "n");
        assert_eq!(translate(&site(Kind::RenameLocal, "a.py", "C.m.v", "w"), &method).symbol, "C.n.v");
        assert_eq!(translate(&method, &site(Kind::Rename, "a.py", "C", "D")).symbol, "D.m");
    }
}
