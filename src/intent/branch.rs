//! branch (feature): a branch of a function's control flow — an `elif` or `else` clause
//! of an if-chain, a guard (`if ...: raise/return/continue/break`), an `except` handler of
//! a `try` with several — with the tests that need it, in a module-level function or a
//! method of a module-level class of a source module ([`clauses`] finds them).
//!
//! The tests that need it are those failing on the tree without it, which only a test
//! run tells: the workspace's [`Probe`](super::Probe) runs them (no probe, no site). Cheap filters come
//! first: with a coverage map, only functions some test ran; no clause whose removal
//! would leave a local or parameter it reads unread (a dead assignment, an unused
//! parameter); the stripped source must parse. Then a clause is a site when 1 to
//! [`MAX_TESTS`] tests fail without it, every one a test function of a test file (a
//! parametrized case names its whole function), and applying it to HEAD works.
//!
//! A site is named by its function's qualified name, the clause's form, its header text
//! and its occurrence among the function's clauses of that form and header (in
//! `target`: `elif|0|value is None`), so it is found again in a tree that differs from
//! HEAD elsewhere (another branch of the same chain taken out). Its `symbol` is the
//! function's qualified name with a suffix free of dots (`parse#elif2`); its `uses` are
//! the project's module-level names the clause reads and `func.local` for each local or
//! parameter of the function it reads (what `rename-local` renames).
//!
//! Applying a site takes out the clause's lines (a guard goes whole, with PEP 8 spacing
//! kept), its tests (`suite`), then what those edits left unused (`prune`).

mod clauses;

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use rustpython_ast as ast;

use super::add_function::Sources;
use super::kind::Kind;
use super::prune;
use super::refs::{self, How, Use};
use super::site::{Change, Site, Transform, Workspace};
use super::suite;
use super::units::{decorators, def_name, find, units};
use crate::pytest::select::CoverageMap;
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};
use clauses::{Clause, Form};

/// The catalogue entry.
pub(crate) struct Branch;

/// The most tests a branch may need (more: it is the function's core, not a feature).
const MAX_TESTS: usize = 12;

/// The longest condition a commit message quotes.
const QUOTED_CHARS: usize = 40;

/// Parameters a method keeps whatever it reads.
const RECEIVERS: [&str; 2] = ["self", "cls"];

impl Transform for Branch {
    fn change(&self) -> Change {
        Change::Feature
    }

    fn description(&self) -> &'static str {
        "adds a branch of a function (an elif, an else, a guard, an except handler) with the tests that need it"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let Some(probe) = workspace.probe else { return Vec::new() };
        let sources = Sources::new(workspace.modules);
        let mut candidates: Vec<(Site, Snapshot)> = Vec::new();
        for (home, module) in workspace.modules.iter().enumerate() {
            for (class, stmt) in units(module) {
                if covered(workspace, module, stmt) {
                    candidates.extend(candidates_of(workspace.tree, &sources, (home, module), class, stmt));
                }
            }
        }
        let failing: Vec<Option<Vec<String>>> =
            candidates.par_iter().map(|(_, stripped)| probe.failing_tests(stripped)).collect();
        let ids = suite::test_ids(workspace.tree);
        let mut out: Vec<Site> = candidates
            .into_iter()
            .zip(failing)
            .filter_map(|((site, _), failing)| {
                let tests = needed(failing?, &ids)?;
                let site = Site { tests, ..site };
                apply(workspace.tree, &site).map(|_| site)
            })
            .collect();
        out.sort_by(|a, b| (&a.path, a.lines.start).cmp(&(&b.path, b.lines.start)));
        out
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        apply(tree, site)
    }

    fn message(&self, site: &Site) -> String {
        let unit = unit_of(site);
        let Some((form, _, header)) = locator(site) else { return format!("Add a branch to `{unit}`") };
        let quoted = !header.is_empty() && header.chars().count() <= QUOTED_CHARS && !header.contains('`');
        match form {
            Form::Else => format!("Add a fallback branch to `{unit}`"),
            Form::Reject if quoted => format!("Reject `{header}` in `{unit}`"),
            Form::Except if header.is_empty() => format!("Handle errors in `{unit}`"),
            Form::Except if !quoted => format!("Handle another error in `{unit}`"),
            _ if quoted => format!("Handle `{header}` in `{unit}`"),
            _ => format!("Handle another case in `{unit}`"),
        }
    }
}

/// The qualified name of a site's function.
fn unit_of(site: &Site) -> &str {
    site.symbol.split_once('#').map_or(site.symbol.as_str(), |(unit, _)| unit)
}

/// A site's form, occurrence and header, read from its `target`.
fn locator(site: &Site) -> Option<(Form, usize, &str)> {
    let mut parts = site.target.as_deref()?.splitn(3, '|');
    let form = parts.next()?.parse().ok()?;
    let occurrence = parts.next()?.parse().ok()?;
    Some((form, occurrence, parts.next()?))
}

/// Whether some test ran the function, when the run has a coverage map.
fn covered(workspace: &Workspace, module: &PyModule, stmt: &ast::Stmt) -> bool {
    let Some(map) = workspace.coverage else { return true };
    let Some(name) = def_name(stmt) else { return false };
    let first = decorators(stmt).first().map_or(PyModule::span(stmt).start, |d| PyModule::span(d).start);
    let key = CoverageMap::function_key(&module.path, module.line_of(first), name);
    map.tests.values().any(|ran| ran.contains(&key))
}

fn body(stmt: &ast::Stmt) -> &[ast::Stmt] {
    match stmt {
        ast::Stmt::FunctionDef(d) => &d.body,
        ast::Stmt::AsyncFunctionDef(d) => &d.body,
        _ => &[],
    }
}

/// The clauses of one function that may be sites (tests not known yet), each with the
/// tree whose source lacks it.
fn candidates_of(
    tree: &Snapshot,
    sources: &Sources,
    (home, module): (usize, &PyModule),
    class: Option<&ast::StmtClassDef>,
    stmt: &ast::Stmt,
) -> Vec<(Site, Snapshot)> {
    let Some(name) = def_name(stmt) else { return Vec::new() };
    let qual = class.map_or_else(|| name.to_string(), |c| format!("{}.{name}", c.name));
    let uses = refs::uses_of(stmt);
    let found = clauses::of(module, body(stmt));
    let mut out = Vec::new();
    // How many clauses of each (form, header), and of each form, came before.
    let mut seen: BTreeMap<(Form, &str), usize> = BTreeMap::new();
    let mut ordinals: BTreeMap<Form, usize> = BTreeMap::new();
    for clause in &found {
        let occurrence = counted(&mut seen, (clause.form, clause.header.as_str()));
        let ordinal = counted(&mut ordinals, clause.form) + 1;
        let Some(reads) = reads(&uses, clause) else { continue };
        let mut names = sources.uses_of(home, stmt, class.is_none().then_some(name), Some(&clause.span));
        names.extend(reads.into_iter().map(|local| format!("{qual}.{local}")));
        let stripped = clause.removed_from(&module.text);
        if !crate::python::parses(&stripped, &module.path) {
            continue;
        }
        let site = Site {
            kind: Kind::Branch,
            path: module.path.clone(),
            symbol: format!("{qual}#{}{ordinal}", clause.form.name()),
            lines: module.line_of(clause.lines.start)..module.line_of(clause.lines.end - 1) + 1,
            uses: names,
            target: Some(format!("{}|{occurrence}|{}", clause.form.name(), clause.header)),
            tests: Vec::new(),
        };
        out.push((site, snapshot::with_file(tree, &module.path, &stripped)));
    }
    out
}

/// How many times `key` was counted before (and counts it once more).
fn counted<K: Ord>(counts: &mut BTreeMap<K, usize>, key: K) -> usize {
    let n = counts.entry(key).or_default();
    *n += 1;
    *n - 1
}

/// The locals and parameters of the function (bound outside the clause) that the
/// clause reads, or `None` when one of them is read nowhere else (taking the clause out
/// would leave a dead assignment or an unused parameter), or when the clause is an
/// `else` binding a name read after its chain that nothing binds before the chain
/// (taking it out would leave the name unbound on that path).
fn reads<'a>(uses: &[Use<'a>], clause: &Clause) -> Option<BTreeSet<&'a str>> {
    let inside = |u: &Use| clause.span.contains(&u.offset);
    if clause.form == Form::Else && leaves_unbound(uses, clause) {
        return None;
    }
    let bound: BTreeSet<&str> =
        uses.iter().filter(|u| matches!(u.how, How::Store | How::Parameter) && !inside(u)).map(|u| u.name).collect();
    let read: BTreeSet<&str> =
        uses.iter().filter(|u| u.how == How::Name && inside(u) && bound.contains(u.name)).map(|u| u.name).collect();
    let dead = read.iter().any(|name| {
        !RECEIVERS.contains(name) && !uses.iter().any(|u| u.how == How::Name && !inside(u) && u.name == *name)
    });
    (!dead).then_some(read)
}

/// Whether an `else` clause binds a name that the function reads after the clause and
/// binds nowhere before the clause's chain (no parameter, no earlier assignment).
fn leaves_unbound(uses: &[Use], clause: &Clause) -> bool {
    let binds = |u: &&Use| matches!(u.how, How::Store | How::Parameter);
    uses.iter().filter(|u| binds(u) && clause.span.contains(&u.offset)).any(|bound| {
        let read_after = uses.iter().any(|u| u.how == How::Name && u.name == bound.name && u.offset >= clause.span.end);
        let bound_before = uses.iter().any(|u| binds(&u) && u.name == bound.name && u.offset < clause.statement_start);
        read_after && !bound_before
    })
}

/// The test functions a branch is needed by, from the tests failing without it: `None`
/// when none fails, more than [`MAX_TESTS`] do, or one is not a test function of a test
/// file (a collection error, a doctest, a time-out).
fn needed(failing: Vec<String>, ids: &BTreeSet<String>) -> Option<Vec<String>> {
    if failing.is_empty() || failing.len() > MAX_TESTS {
        return None;
    }
    let needed: BTreeSet<String> = failing.iter().map(|id| suite::without_params(id).to_string()).collect();
    needed.iter().all(|id| ids.contains(id)).then(|| needed.into_iter().collect())
}

/// `tree` without the site's clause and its tests (see the module header).
fn apply(tree: &Snapshot, site: &Site) -> Option<Snapshot> {
    let (form, occurrence, header) = locator(site)?;
    let unit = unit_of(site);
    let (class, name) = match unit.split_once('.') {
        Some((class, name)) => (Some(class), name),
        None => (None, unit),
    };
    let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
    let stmt = find(&module, class, name)?;
    let clause =
        clauses::of(&module, body(stmt)).into_iter().filter(|c| c.form == form && c.header == header).nth(occurrence)?;
    prune::feature_taken_out(tree, &site.path, clause.removed_from(&module.text), &site.tests)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(target: &str) -> Site {
        Site {
            kind: Kind::Branch,
            path: "m.py".into(),
            symbol: "Parser.parse#elif1".into(),
            lines: 1..3,
            uses: BTreeSet::new(),
            target: Some(target.into()),
            tests: vec![],
        }
    }

    #[test]
    fn messages_say_what_the_branch_handles() {
        let message = |target: &str| Branch.message(&site(target));
        assert_eq!(message("elif|0|value is None"), "Handle `value is None` in `Parser.parse`");
        assert_eq!(message("reject|0|not items"), "Reject `not items` in `Parser.parse`");
        assert_eq!(message("except|1|KeyError"), "Handle `KeyError` in `Parser.parse`");
        assert_eq!(message("except|0|"), "Handle errors in `Parser.parse`");
        assert_eq!(message("else|0|x"), "Add a fallback branch to `Parser.parse`");
        assert_eq!(message(&format!("guard|0|{}", "a and b ".repeat(8))), "Handle another case in `Parser.parse`");
    }

    #[test]
    fn a_failing_id_outside_the_test_functions_refuses_the_site() {
        let ids: BTreeSet<String> = ["t/test_a.py::test_x".to_string()].into();
        assert_eq!(needed(vec!["t/test_a.py::test_x[1]".into()], &ids), Some(vec!["t/test_a.py::test_x".into()]));
        assert_eq!(needed(vec!["t/test_a.py::<collection>".into()], &ids), None);
        assert_eq!(needed(vec![], &ids), None);
    }
}
