//! add-module (feature): a whole source module with its test module, added as a
//! developer adds a matcher, a parser or a backend: the new file, its tests, and the
//! lines of the package's `__init__.py` that export it.
//!
//! A site is a *leaf* module of HEAD: not an `__init__.py`, `__main__.py`, conftest or
//! test file; at least one function or class; at most [`MAX_LINES`] lines; run by some
//! test when the run has a coverage map. Nothing outside it may import it or a name from
//! it but `__init__.py` files of the sources (re-exports: their import statements from
//! it go, and what those bound may be used there only in `__all__`) and its test
//! modules: the test files importing it, each named for it (`test_M.py`, `M_test.py`,
//! `test_M_*.py`; leading underscores ignored) — a test helper or another module's
//! tests importing it make it no leaf.
//!
//! Applying a site takes out the module, its test modules, the re-exporting imports and
//! the `__all__` entries of the names they bound (in every `__init__.py` of the
//! sources: a star import passes them up a package), then the test functions elsewhere
//! that fail without it. Those are found by a run, as for `branch` (the workspace's
//! [`Probe`](super::Probe)): at most [`MAX_TESTS`], each a test function of a test file
//! (a collection error or a doctest makes no site).
//!
//! The site's `symbol` is the module's dotted name (a leading `src` left out), its
//! `lines` the whole file, its `uses` the project's names the module's code uses that
//! it does not define itself, its `target` the module docstring's one-line summary.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rayon::prelude::*;
use rustpython_ast as ast;

use super::add_function::Sources;
use super::kind::Kind;
use super::prune;
use super::refs::{self, How};
use super::site::{Change, Site, Transform, Workspace};
use super::strip;
use super::suite;
use super::units::{defined_names, is_init, summary_of_body, Files};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// The catalogue entry.
pub(crate) struct AddModule;

/// The longest module a site may be (longer: a subsystem, not a feature).
const MAX_LINES: usize = 400;

/// The most tests outside its test modules a module may be needed by.
const MAX_TESTS: usize = 12;

/// Files that are never a feature module.
const NOT_FEATURES: [&str; 4] = ["__init__.py", "__main__.py", "conftest.py", "setup.py"];

impl Transform for AddModule {
    fn change(&self) -> Change {
        Change::Feature
    }

    fn description(&self) -> &'static str {
        "adds a module with its test module, its re-exports and the tests elsewhere that need it"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let Some(probe) = workspace.probe else { return Vec::new() };
        let sources = Sources::new(workspace.modules);
        let candidates: Vec<(Site, Snapshot)> = workspace
            .modules
            .iter()
            .enumerate()
            .filter(|(_, module)| is_candidate(workspace, module))
            .filter_map(|(home, module)| {
                let stripped = without_module(workspace.tree, &module.path)?;
                let site = Site {
                    kind: Kind::AddModule,
                    path: module.path.clone(),
                    symbol: dotted_name(&module.path),
                    lines: 1..module.text.lines().count() + 1,
                    uses: uses(&sources, home, module),
                    target: summary_of_body(&module.suite),
                    tests: stripped.own_tests.into_iter().collect(),
                };
                Some((site, stripped.tree))
            })
            .collect();
        let failing: Vec<Option<Vec<String>>> =
            candidates.par_iter().map(|(_, stripped)| probe.failing_tests(stripped)).collect();
        let ids = suite::test_ids(workspace.tree);
        candidates
            .into_iter()
            .zip(failing)
            .filter_map(|((site, _), failing)| {
                let mut tests: BTreeSet<String> = site.tests.iter().cloned().collect();
                tests.extend(needed_elsewhere(failing?, &ids, &tests)?);
                // A module most of the suite needs is the project's core, not a feature.
                let core = tests.len() * 2 > ids.len();
                let site = Site { tests: tests.into_iter().collect(), ..site };
                (!site.tests.is_empty() && !core && apply(workspace.tree, &site).is_some()).then_some(site)
            })
            .collect()
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        apply(tree, site)
    }

    fn message(&self, site: &Site) -> String {
        let name = site.symbol.rsplit('.').next().unwrap_or(&site.symbol);
        match &site.target {
            Some(summary) => format!("Add the `{name}` module: {summary}"),
            None => format!("Add the `{name}` module"),
        }
    }
}

/// Whether a source module may be a site before its importers are read.
fn is_candidate(workspace: &Workspace, module: &PyModule) -> bool {
    let file = module.path.rsplit('/').next().unwrap_or(&module.path);
    let defines = module.suite.iter().any(|s| {
        matches!(s, ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_))
    });
    let ran = workspace.coverage.is_none_or(|map| {
        let prefix = format!("{}:", module.path);
        map.tests.values().any(|ran| ran.iter().any(|key| key.starts_with(&prefix)))
    });
    !NOT_FEATURES.contains(&file)
        && !snapshot::is_test_file(&module.path)
        && defines
        && module.text.lines().count() <= MAX_LINES
        && ran
}

/// `src/hamcrest/core/isequal.py` → `hamcrest.core.isequal`.
fn dotted_name(path: &str) -> String {
    let parts = refs::module_parts(path);
    let parts = match parts.first().map(String::as_str) {
        Some("src") if parts.len() > 1 => &parts[1..],
        _ => &parts[..],
    };
    parts.join(".")
}

/// The project's names the module's code uses and does not define.
fn uses(sources: &Sources, home: usize, module: &PyModule) -> BTreeSet<String> {
    let own: BTreeSet<&str> = refs::module_scope(&module.suite).into_iter().flat_map(defined_names).collect();
    let mut out = BTreeSet::new();
    for stmt in &module.suite {
        out.extend(sources.uses_of(home, stmt, None, None).into_iter().filter(|name| !own.contains(name.as_str())));
    }
    out
}

/// The test functions outside the module's test files that fail without it: `None` when
/// more than [`MAX_TESTS`] do or one is not a test function of a test file.
fn needed_elsewhere(failing: Vec<String>, ids: &BTreeSet<String>, own: &BTreeSet<String>) -> Option<Vec<String>> {
    let needed: BTreeSet<String> = failing.iter().map(|id| suite::without_params(id).to_string()).collect();
    let elsewhere: Vec<String> = needed.into_iter().filter(|id| !own.contains(id)).collect();
    (elsewhere.len() <= MAX_TESTS && elsewhere.iter().all(|id| ids.contains(id))).then_some(elsewhere)
}

/// A tree without a module, its test modules and its re-exports.
struct Stripped {
    tree: Snapshot,
    /// The test ids of the test modules taken out.
    own_tests: BTreeSet<String>,
}

/// `tree` without the module at `path`, its test modules, the imports re-exporting it
/// and the `__all__` entries of what they bound; `None` when it is no leaf (see the
/// module header).
fn without_module(tree: &Snapshot, path: &str) -> Option<Stripped> {
    let parts = refs::module_parts(path);
    let stem = parts.last()?.clone();
    let files = Files::new(tree);
    let home = files.get(path)?;
    let mut out = tree.clone();
    out.remove(path);
    let mut own_tests = BTreeSet::new();
    let mut exported: BTreeSet<String> = BTreeSet::new();
    for other in tree.keys().filter(|p| p.ends_with(".py") && p.as_str() != path) {
        let Some(text) = files.text(other) else { continue };
        if !refs::mentions(text, &stem) {
            continue;
        }
        let module = files.get(other)?;
        if first_import(&module, &parts).is_none() {
            continue;
        }
        if snapshot::is_test_file(other) {
            if !named_for(other, &stem) {
                return None;
            }
            own_tests.extend(suite::tests(&module).into_iter().map(|t| t.id));
            out.remove(other);
            continue;
        }
        if !is_init(other) {
            return None;
        }
        let (text, bound) = without_reexports(&module, &parts, &home)?;
        exported.extend(bound);
        out.insert(other.clone(), Arc::from(text.as_bytes()));
    }
    for init in out.keys().filter(|p| is_init(p) && !snapshot::is_test_file(p)).cloned().collect::<Vec<_>>() {
        let text = without_all_entries(&init, snapshot::text_of(&out, &init)?, &exported)?;
        out.insert(init, Arc::from(text.as_bytes()));
    }
    Some(Stripped { tree: out, own_tests })
}

/// Whether a test file is named for the module `stem` (`test_stem.py`, `stem_test.py`,
/// `test_stem_more.py`; leading underscores of either ignored).
fn named_for(test_path: &str, stem: &str) -> bool {
    let file = test_path.rsplit('/').next().unwrap_or(test_path);
    let name = file.strip_suffix(".py").unwrap_or(file);
    let core = name.strip_prefix("test_").or_else(|| name.strip_suffix("_test")).unwrap_or(name);
    let core = core.strip_suffix("_test").unwrap_or(core).trim_start_matches('_');
    let stem = stem.trim_start_matches('_');
    !stem.is_empty() && (core == stem || core.starts_with(&format!("{stem}_")))
}

/// An import of the module at `parts` (or of a name from it) in `module`: the statement's
/// index in `PyModule::statements` and the alias (`None`: every name of a `from` import
/// of the module itself, a star included).
fn first_import(module: &PyModule, parts: &[String]) -> Option<(usize, Option<usize>)> {
    let package = &parts[..parts.len() - 1];
    let stem = parts.last()?;
    for (index, site) in module.statements().iter().enumerate() {
        match site.stmt {
            ast::Stmt::ImportFrom(import) => {
                let target = refs::from_target(&module.path, import);
                if refs::names_module(&target, parts) {
                    return Some((index, None));
                }
                if refs::names_module(&target, package) || (target.is_empty() && package.is_empty()) {
                    if let Some(alias) = import.names.iter().position(|a| a.name.as_str() == stem) {
                        return Some((index, Some(alias)));
                    }
                }
            }
            ast::Stmt::Import(import) => {
                let alias = import.names.iter().position(|a| {
                    let dotted: Vec<String> = a.name.split('.').map(str::to_string).collect();
                    refs::names_module(&dotted, parts)
                });
                if let Some(alias) = alias {
                    return Some((index, Some(alias)));
                }
            }
            _ => {}
        }
    }
    None
}

/// An `__init__.py`'s text without its imports of the module (or of names from it), and
/// the names those imports bound; `None` when the file uses one of them outside
/// `__all__` (an `__init__` that calls the module is no re-export).
fn without_reexports(init: &PyModule, parts: &[String], home: &PyModule) -> Option<(String, BTreeSet<String>)> {
    let mut bound = BTreeSet::new();
    let mut current = init.text.clone();
    loop {
        let module = PyModule::parse(&init.path, &current).ok()?;
        let Some((index, alias)) = first_import(&module, parts) else { break };
        let statements = module.statements();
        let site = &statements[index];
        let (names, block_index) = (import_names(site.stmt), site.index);
        current = match alias {
            None => {
                bound.extend(names.iter().flat_map(|(name, local)| match name.as_str() {
                    "*" => public_names(home),
                    _ => vec![local.clone()],
                }));
                strip::without_statement(&module, site.block, block_index)?
            }
            Some(alias) => {
                bound.insert(names.get(alias)?.1.clone());
                strip::without_import_name(&module, site.block, block_index, alias)?
            }
        };
    }
    let module = PyModule::parse(&init.path, &current).ok()?;
    let used = refs::uses(&module.suite).iter().any(|u| matches!(u.how, How::Name) && bound.contains(u.name));
    (!used).then_some((current, bound))
}

/// An import statement's (name, local name) pairs (`import a.b` binds `a`).
fn import_names(stmt: &ast::Stmt) -> Vec<(String, String)> {
    let aliases = match stmt {
        ast::Stmt::Import(import) => &import.names,
        ast::Stmt::ImportFrom(import) => &import.names,
        _ => return Vec::new(),
    };
    let from = matches!(stmt, ast::Stmt::ImportFrom(_));
    aliases
        .iter()
        .map(|a| {
            let local = match (&a.asname, from) {
                (Some(asname), _) => asname.to_string(),
                (None, true) => a.name.to_string(),
                (None, false) => a.name.split('.').next().unwrap_or_default().to_string(),
            };
            (a.name.to_string(), local)
        })
        .collect()
}

/// What `from module import *` binds: its `__all__`, else its public module-level names.
fn public_names(module: &PyModule) -> Vec<String> {
    let all: Vec<String> = strip::all_entries(module).into_iter().map(|(name, _, _)| name).collect();
    if !all.is_empty() {
        return all;
    }
    refs::module_scope(&module.suite)
        .into_iter()
        .flat_map(defined_names)
        .filter(|name| !name.starts_with('_'))
        .map(str::to_string)
        .collect()
}

/// An `__init__.py`'s text without the `__all__` entries of `names` it does not define
/// itself.
fn without_all_entries(path: &str, text: &str, names: &BTreeSet<String>) -> Option<String> {
    let mut current = text.to_string();
    for name in names {
        let module = PyModule::parse(path, &current).ok()?;
        let defines = refs::module_scope(&module.suite).into_iter().any(|s| defined_names(s).contains(&name.as_str()));
        if defines {
            continue;
        }
        if let Some(text) = strip::without_all_entry(&module, name) {
            current = text;
        }
    }
    Some(current)
}

/// `tree` without the site's module, its test modules and re-exports, and the site's
/// tests elsewhere (see the module header).
fn apply(tree: &Snapshot, site: &Site) -> Option<Snapshot> {
    let Stripped { tree: mut out, .. } = without_module(tree, &site.path)?;
    let ids: BTreeSet<String> = site.tests.iter().cloned().collect();
    let paths: BTreeSet<&str> = ids.iter().filter_map(|id| id.split_once("::").map(|(p, _)| p)).collect();
    let mut edits = BTreeMap::new();
    for path in paths {
        // A test module taken out with the module holds some of them.
        let Some(text) = snapshot::text_of(&out, path) else { continue };
        let edited = suite::without_tests(path, text, &ids)?;
        if edited != text {
            edits.insert(path.to_string(), edited);
        }
    }
    prune::write_pruned(tree, &mut out, edits)?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_modules_are_named_for_their_module() {
        assert!(named_for("tests/test_pricing.py", "pricing"));
        assert!(named_for("tests/unit/pricing_test.py", "pricing"));
        assert!(named_for("tests/test_pricing_rounding.py", "pricing"));
        assert!(named_for("tests/test_funcs.py", "_funcs"));
        assert!(!named_for("tests/test_pricing.py", "price"));
        assert!(!named_for("tests/helpers.py", "helpers_x"));
        assert!(!named_for("tests/test_orders.py", "pricing"));
    }

    #[test]
    fn dotted_names_leave_out_src() {
        assert_eq!(dotted_name("src/hamcrest/core/isequal.py"), "hamcrest.core.isequal");
        assert_eq!(dotted_name("ledger/items.py"), "ledger.items");
    }
}
