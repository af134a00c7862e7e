//! Refactor intent `move`: a module-level function or class moves from its module A to
//! another module B of the same folder (package), and every use follows, in sources and
//! tests alike, so the unchanged suite still passes.
//!
//! A site is a (unit, B) pair: a top-level `def`/`class` of a source module, with B the
//! other source module of its folder that uses it most ([`main_user`]), as a developer
//! moves code next to its main user; a unit no sibling uses does not move.
//! [`plan`] decides what each file changes (or refuses); this file walks the candidates
//! and writes the changed files back into a tree, each checked to still parse.
//!
//! - [`index`]: the tree's parsed files, their module names, imports and references;
//! - [`scope`]: which module-level names code reads (Python's scoping rules);
//! - [`plan`]: the move itself;
//! - [`change`]: one file's collected edits, rendered as splices.

mod change;
mod index;
mod plan;
mod scope;

use std::collections::BTreeSet;
use std::sync::Arc;

use super::kind::Kind;
use super::naming;
use super::site::{Change, Rewrites, Site, Transform, Workspace};
use crate::python::parses;
use crate::snapshot::Snapshot;
use index::Index;

pub(crate) struct MoveDef;

impl Transform for MoveDef {
    fn change(&self) -> Change {
        Change::Refactor(Rewrites::Location)
    }

    fn description(&self) -> &'static str {
        "moves a module-level function or class to another module of its package, updating every import and use"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let index = Index::of(workspace.tree);
        let candidates: Vec<usize> =
            workspace.modules.iter().filter(|m| movable(&m.path)).filter_map(|m| index.file(&m.path)).collect();
        let mut out = Vec::new();
        for &a in &candidates {
            let file = &index.files[a];
            let targets: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|&b| b != a && folder(&index.files[b].py.path) == folder(&file.py.path))
                .collect();
            let siblings: Vec<(&str, &str)> =
                targets.iter().map(|&b| (index.files[b].py.path.as_str(), index.files[b].py.text.as_str())).collect();
            for (stmt, node) in file.py.suite.iter().enumerate() {
                let (Some(name), Some(unit)) = (plan::def_name(node), plan::unit(file, stmt)) else { continue };
                let Some(target) = main_user(&siblings, &name) else { continue };
                let Some(b) = index.file(target) else { continue };
                if plan::plan(&index, a, stmt, b).is_some() {
                    out.push(Site {
                        kind: Kind::Move,
                        path: file.py.path.clone(),
                        symbol: name.clone(),
                        lines: unit.lines.clone(),
                        uses: BTreeSet::from([name]),
                        target: Some(target.to_string()),
                        tests: Vec::new(),
                    });
                }
            }
        }
        out
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let index = Index::of(tree);
        let a = index.file(&site.path)?;
        let b = index.file(site.target.as_deref()?)?;
        let stmt = index.files[a].py.suite.iter().position(|s| plan::def_name(s).as_deref() == Some(&site.symbol))?;
        let planned = plan::plan(&index, a, stmt, b)?;
        let mut out = tree.clone();
        let files = planned.files.iter().map(|(f, c)| (&index.files[*f], c));
        let stubs = planned.stubs.iter().map(|(f, c)| (&index.stubs[*f], c));
        for (file, change) in files.chain(stubs) {
            let text = change.render(file, &|import| plan::is_project(&index, import))?;
            if text == file.py.text {
                continue;
            }
            if !parses(&text, &file.py.path) {
                return None;
            }
            out.insert(file.py.path.clone(), Arc::from(text.as_bytes()));
        }
        Some(out)
    }

    fn message(&self, site: &Site) -> String {
        let target = site.target.as_deref().unwrap_or_default();
        format!("Move `{}` to `{}`", site.symbol, target.rsplit('/').next().unwrap_or(target))
    }
}

/// The module among `siblings` (path, text) whose code mentions `name` on the most
/// lines (the first in path order on a tie), if any mentions it: where a developer would
/// move the unit.
pub(crate) fn main_user<'a>(siblings: &[(&'a str, &str)], name: &str) -> Option<&'a str> {
    let uses = |text: &str| text.lines().filter(|line| naming::occurs_in_code(line, name)).count();
    let mut best: Option<(&str, usize)> = None;
    for (path, text) in siblings {
        let n = uses(text);
        if n > 0 && best.is_none_or(|(p, m)| n > m || (n == m && *path < p)) {
            best = Some((path, n));
        }
    }
    best.map(|(path, _)| path)
}

/// A module a unit may leave or join: not a package's `__init__.py` or `__main__.py`.
pub(crate) fn movable(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.ends_with(".py") && name != "__init__.py" && name != "__main__.py"
}

/// The folder (package) of a module's path: a unit moves only within its folder.
pub(crate) fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}
