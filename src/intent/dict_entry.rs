//! dict-entry (feature): an entry of a table — a dict display keyed by strings, or a
//! class of named constants — a registry of colours, codecs, handlers or units, with
//! the test cases that need it, added as a developer adds a colour to a palette: one
//! line in the table, one case in the parametrized test or one assertion in the test
//! that checks every entry.
//!
//! A table is a source module's module-level `NAME = {...}` (annotated or not) whose
//! keys are distinct string literals, or a module-level class whose body assigns
//! distinct upper-case names (`RED = 31`) literals (an enum, a set of codes); it has
//! [`MIN_ENTRIES`] to [`MAX_ENTRIES`] entries. An entry is a site when the tests fail
//! without it (a run, the workspace's [`Probe`](super::Probe), tells which) and taking
//! its tests out leaves a passing tree (a second run): a failing parametrized case loses
//! the elements of its function's `parametrize` list that hold the key as a string
//! (none: no site); a failing plain test function loses its simple statements that name
//! the key (as a name, an attribute or a string) when others are left, else goes whole
//! (at most [`MAX_TESTS`], each a test function of a test file). Two entries may need
//! one test this way ([`Transform::shares_tests`]). Entries are tried in source order,
//! at most [`MAX_PROBED`] a substrate and fewer on a large suite: [`PROBE_CASES`] test
//! cases over all their first runs.
//!
//! The site's `symbol` is `NAME[key]` (the key as the source spells it) or `Class.NAME`,
//! `target` the key, `uses` the table's name and the project's names the entry's value
//! uses, `tests` the failing ids (parametrized ones with their suffix).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rayon::prelude::*;
use rustpython_ast as ast;

use super::add_function::Sources;
use super::kind::Kind;
use super::prune;
use super::refs;
use super::site::{Change, Site, Transform, Workspace};
use crate::python::walk;
use super::strip;
use super::suite;
use super::units::decorators;
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// The catalogue entry.
pub(crate) struct DictEntry;

/// The fewest entries a table has (fewer: a record, not a registry).
const MIN_ENTRIES: usize = 3;
/// The most (more: generated data, where one entry is no feature).
const MAX_ENTRIES: usize = 80;
/// The most plain test functions an entry may need.
const MAX_TESTS: usize = 12;
/// The most entries tried on one substrate (each costs a test run or two).
const MAX_PROBED: usize = 300;
/// The fewest, however large the suite.
const MIN_PROBED: usize = 8;
/// The test cases the first runs of a substrate's entries may add up to: packaging's
/// 26,852 cases take a minute a run, so it gets [`MIN_PROBED`] entries, termcolor's 65 all.
const PROBE_CASES: usize = 150_000;

impl Transform for DictEntry {
    fn change(&self) -> Change {
        Change::Feature
    }

    fn description(&self) -> &'static str {
        "adds an entry to a table (a module-level dict keyed by strings, or a class of named constants) with the test cases that need it"
    }

    fn shares_tests(&self) -> bool {
        true
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let Some(probe) = workspace.probe else { return Vec::new() };
        let sources = Sources::new(workspace.modules);
        let mut candidates: Vec<(Site, Snapshot)> = Vec::new();
        for (home, module) in workspace.modules.iter().enumerate() {
            for table in tables(module) {
                for index in 0..table.entries.len() {
                    if let Some(candidate) = candidate(workspace.tree, &sources, home, module, &table, index) {
                        candidates.push(candidate);
                    }
                }
            }
        }
        let ids = suite::test_ids(workspace.tree);
        candidates.truncate(most_probed(workspace, &ids));
        let failing: Vec<Option<Vec<String>>> =
            candidates.par_iter().map(|(_, stripped)| probe.failing_tests(stripped)).collect();
        let tested: Vec<(Site, Snapshot)> = candidates
            .into_iter()
            .zip(failing)
            .filter_map(|((site, _), failing)| {
                let failing = failing?;
                let plain: Vec<&String> = failing.iter().filter(|id| !id.contains('[')).collect();
                let known = failing.iter().all(|id| ids.contains(suite::without_params(id)));
                if failing.is_empty() || plain.len() > MAX_TESTS || !known {
                    return None;
                }
                let site = Site { tests: failing, ..site };
                let applied = apply(workspace.tree, &site)?;
                Some((site, applied))
            })
            .collect();
        let passing: Vec<bool> =
            tested.par_iter().map(|(_, applied)| probe.failing_tests(applied).is_some_and(|f| f.is_empty())).collect();
        tested.into_iter().zip(passing).filter(|(_, passes)| *passes).map(|((site, _), _)| site).collect()
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        apply(tree, site)
    }

    fn message(&self, site: &Site) -> String {
        let table = site.symbol.split(['[', '.']).next().unwrap_or(&site.symbol);
        match &site.target {
            Some(key) => format!("Add `{key}` to `{table}`"),
            None => format!("Add an entry to `{table}`"),
        }
    }
}

/// How many entries to try: [`PROBE_CASES`] over the suite's test cases (the coverage
/// map's, else the test functions), within [`MIN_PROBED`]..=[`MAX_PROBED`]. A count, not
/// a duration, so that every run tries the same entries.
fn most_probed(workspace: &Workspace, ids: &BTreeSet<String>) -> usize {
    let cases = workspace.coverage.map_or(ids.len(), |map| map.tests.len()).max(1);
    (PROBE_CASES / cases).clamp(MIN_PROBED, MAX_PROBED)
}

/// A table: its name, where it is and its entries.
struct Table {
    name: String,
    /// The byte span of the whole assignment or class.
    stmt: Range<usize>,
    /// A class of constants (its entries are statements of its body), not a dict.
    class: bool,
    entries: Vec<Entry>,
}

/// One `key: value` of a dict, or one `KEY = value` of a class.
struct Entry {
    key: String,
    /// The key as the source spells it (quotes included).
    spelled: String,
    /// From the key's first byte to the value's last.
    span: Range<usize>,
    value: Range<usize>,
}

impl Table {
    /// The site symbol of entry `index`.
    fn symbol(&self, index: usize) -> String {
        let entry = &self.entries[index];
        if self.class {
            format!("{}.{}", self.name, entry.key)
        } else {
            format!("{}[{}]", self.name, entry.spelled)
        }
    }

    /// `module`'s text without entry `index`: its statement, or its element of the dict.
    fn without(&self, module: &PyModule, index: usize) -> Option<String> {
        let spans: Vec<Range<usize>> = self.entries.iter().map(|e| e.span.clone()).collect();
        if !self.class {
            return strip::without_element(&module.text, &spans, index);
        }
        let body = module.suite.iter().find_map(|s| match s {
            ast::Stmt::ClassDef(c) if PyModule::span(s) == self.stmt => Some(&c.body),
            _ => None,
        })?;
        let at = body.iter().position(|s| PyModule::span(s) == spans[index])?;
        strip::without_statement(module, body, at)
    }
}

/// The module's tables (see the module header).
fn tables(module: &PyModule) -> Vec<Table> {
    let mut out = Vec::new();
    for stmt in &module.suite {
        let table = match stmt {
            ast::Stmt::ClassDef(class) => class_table(module, class),
            _ => dict_table(module, stmt),
        };
        let Some(table) = table else { continue };
        let keys: BTreeSet<&str> = table.entries.iter().map(|e| e.key.as_str()).collect();
        if (MIN_ENTRIES..=MAX_ENTRIES).contains(&table.entries.len()) && keys.len() == table.entries.len() {
            out.push(table);
        }
    }
    out
}

/// A module-level `NAME = {...}` whose every key is a string literal.
fn dict_table(module: &PyModule, stmt: &ast::Stmt) -> Option<Table> {
    let (target, value) = match stmt {
        ast::Stmt::Assign(a) if a.targets.len() == 1 => (&a.targets[0], a.value.as_ref()),
        ast::Stmt::AnnAssign(a) => (a.target.as_ref(), a.value.as_deref()?),
        _ => return None,
    };
    let (ast::Expr::Name(name), ast::Expr::Dict(dict)) = (target, value) else { return None };
    let mut entries = Vec::new();
    for (key, value) in dict.keys.iter().zip(&dict.values) {
        let Some(ast::Expr::Constant(constant)) = key else { return None };
        let ast::Constant::Str(text) = &constant.value else { return None };
        let key_span = PyModule::span(key.as_ref().expect("a key"));
        let value_span = PyModule::span(value);
        entries.push(Entry {
            key: text.clone(),
            spelled: module.text[key_span.clone()].to_string(),
            span: key_span.start..value_span.end,
            value: value_span,
        });
    }
    Some(Table { name: name.id.to_string(), stmt: PyModule::span(stmt), class: false, entries })
}

/// A class whose body assigns upper-case names literals (its other members ignored).
fn class_table(module: &PyModule, class: &ast::StmtClassDef) -> Option<Table> {
    let mut entries = Vec::new();
    for stmt in &class.body {
        let ast::Stmt::Assign(assign) = stmt else { continue };
        let [ast::Expr::Name(name)] = assign.targets.as_slice() else { continue };
        if !is_constant_name(&name.id) || !is_literal(&assign.value) {
            continue;
        }
        let span = PyModule::span(stmt);
        entries.push(Entry {
            key: name.id.to_string(),
            spelled: module.text[PyModule::span(name)].to_string(),
            span,
            value: PyModule::span(assign.value.as_ref()),
        });
    }
    Some(Table { name: class.name.to_string(), stmt: PyModule::span(class), class: true, entries })
}

/// `RED`, `LIGHT_RED_EX`: letters upper-case, not private.
fn is_constant_name(name: &str) -> bool {
    !name.starts_with('_') && name.chars().any(|c| c.is_ascii_uppercase()) && !name.chars().any(|c| c.is_lowercase())
}

/// A number or string literal (negative numbers too).
fn is_literal(value: &ast::Expr) -> bool {
    match value {
        ast::Expr::Constant(c) => matches!(
            c.value,
            ast::Constant::Int(_) | ast::Constant::Float(_) | ast::Constant::Str(_) | ast::Constant::Bytes(_)
        ),
        ast::Expr::UnaryOp(u) => matches!(u.operand.as_ref(), ast::Expr::Constant(_)),
        _ => false,
    }
}

/// The site of entry `index` (its tests not known yet), with the tree whose source lacks
/// it.
fn candidate(
    tree: &Snapshot,
    sources: &Sources,
    home: usize,
    module: &PyModule,
    table: &Table,
    index: usize,
) -> Option<(Site, Snapshot)> {
    let entry = &table.entries[index];
    let stripped = table.without(module, index)?;
    if !crate::python::parses(&stripped, &module.path) {
        return None;
    }
    let stmt = module.suite.iter().find(|s| PyModule::span(*s) == table.stmt)?;
    let mut uses = sources.uses_of(home, stmt, None, Some(&entry.value));
    uses.insert(table.name.clone());
    let site = Site {
        kind: Kind::DictEntry,
        path: module.path.clone(),
        symbol: table.symbol(index),
        lines: module.line_of(entry.span.start)..module.line_of(entry.span.end) + 1,
        uses,
        target: Some(entry.key.clone()),
        tests: Vec::new(),
    };
    Some((site, snapshot::with_file(tree, &module.path, &stripped)))
}

/// `tree` without the site's entry and its tests (see the module header).
fn apply(tree: &Snapshot, site: &Site) -> Option<Snapshot> {
    let key = site.target.as_deref()?;
    let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
    let (table, index) = tables(&module).into_iter().find_map(|table| {
        let index = (0..table.entries.len()).find(|&i| table.symbol(i) == site.symbol)?;
        Some((table, index))
    })?;
    let mut out = snapshot::with_file(tree, &site.path, &table.without(&module, index)?);
    let parametrized: BTreeSet<&str> =
        site.tests.iter().filter(|id| id.contains('[')).map(|id| suite::without_params(id)).collect();
    let plain: BTreeSet<&String> = site.tests.iter().filter(|id| !id.contains('[')).collect();
    let paths: BTreeSet<&str> = site.tests.iter().filter_map(|id| id.split_once("::").map(|(p, _)| p)).collect();
    let mut edits = BTreeMap::new();
    for path in paths {
        let mut text = snapshot::text_of(tree, path)?.to_string();
        let prefix = format!("{path}::");
        let in_file = |id: &str| id.starts_with(&prefix);
        for function in parametrized.iter().filter(|id| in_file(id)) {
            text = without_cases(path, &text, function, key)?;
        }
        let mut whole = BTreeSet::new();
        for id in plain.iter().filter(|id| in_file(id)) {
            match without_lines_naming(path, &text, id, key) {
                Some(pruned) => text = pruned,
                None => {
                    whole.insert(id.to_string());
                }
            }
        }
        edits.insert(path.to_string(), suite::without_tests(path, &text, &whole)?);
    }
    prune::write_pruned(tree, &mut out, edits)?;
    Some(out)
}

/// A test file's text without the simple statements of test `id`'s body (an assertion,
/// a call, an assignment) that name `key`; `None` when none does or nothing but a
/// docstring would be left (the test then goes whole).
fn without_lines_naming(path: &str, text: &str, id: &str, key: &str) -> Option<String> {
    let mut current = text.to_string();
    let mut removed = 0;
    loop {
        let module = PyModule::parse(path, &current).ok()?;
        let tests = suite::tests(&module);
        let body = match tests.iter().find(|t| t.id == id)?.stmt {
            ast::Stmt::FunctionDef(f) => &f.body,
            ast::Stmt::AsyncFunctionDef(f) => &f.body,
            _ => return None,
        };
        let Some(index) = body.iter().position(|s| is_simple(s) && names(s, key)) else { break };
        if body.iter().filter(|s| !walk::is_docstring(s)).count() < 2 {
            return None;
        }
        current = strip::without_statement(&module, body, index)?;
        removed += 1;
    }
    (removed > 0).then_some(current)
}

/// An expression statement, assertion or assignment.
fn is_simple(stmt: &ast::Stmt) -> bool {
    matches!(
        stmt,
        ast::Stmt::Expr(_) | ast::Stmt::Assert(_) | ast::Stmt::Assign(_) | ast::Stmt::AugAssign(_) | ast::Stmt::AnnAssign(_)
    )
}

/// Whether a statement names `key`: a name, an attribute or a string equal to it.
fn names(stmt: &ast::Stmt, key: &str) -> bool {
    let mut stack: Vec<&ast::Expr> = walk::stmt_exprs(stmt);
    while let Some(expr) = stack.pop() {
        let hit = match expr {
            ast::Expr::Name(n) => n.id.as_str() == key,
            ast::Expr::Attribute(a) => a.attr.as_str() == key,
            ast::Expr::Constant(c) => matches!(&c.value, ast::Constant::Str(s) if s == key),
            _ => false,
        };
        if hit {
            return true;
        }
        stack.extend(walk::expr_children(expr));
    }
    false
}

/// A test file's text without the elements of test `function`'s `parametrize` lists
/// that hold `key` as a string; `None` when none does or a list would be left empty.
fn without_cases(path: &str, text: &str, function: &str, key: &str) -> Option<String> {
    let mut current = text.to_string();
    let mut removed = 0;
    loop {
        let module = PyModule::parse(path, &current).ok()?;
        let tests = suite::tests(&module);
        let test = tests.iter().find(|t| t.id == function)?;
        let Some((elements, index)) = decorators(test.stmt).iter().find_map(|d| holding(d, key)) else { break };
        current = strip::without_element(&current, &elements, index)?;
        removed += 1;
    }
    (removed > 0).then_some(current)
}

/// In a `parametrize(names, values)` decorator, the spans of the values and the index of
/// the first one holding `key` as a string (itself, in a tuple, or in `pytest.param`).
fn holding(decorator: &ast::Expr, key: &str) -> Option<(Vec<Range<usize>>, usize)> {
    let ast::Expr::Call(call) = decorator else { return None };
    let callee = refs::dotted(&call.func)?;
    if callee.rsplit('.').next() != Some("parametrize") {
        return None;
    }
    let values = call
        .args
        .get(1)
        .or_else(|| call.keywords.iter().find(|k| k.arg.as_deref() == Some("argvalues")).map(|k| &k.value))?;
    let elements = match values {
        ast::Expr::List(l) => &l.elts,
        ast::Expr::Tuple(t) => &t.elts,
        _ => return None,
    };
    let index = elements.iter().position(|e| holds(e, key))?;
    Some((elements.iter().map(PyModule::span).collect(), index))
}

/// Whether a parametrize value is `key`, or a tuple or `pytest.param(...)` holding it.
fn holds(value: &ast::Expr, key: &str) -> bool {
    let is_key = |e: &ast::Expr| matches!(e, ast::Expr::Constant(c) if matches!(&c.value, ast::Constant::Str(s) if s == key));
    match value {
        ast::Expr::Tuple(t) => t.elts.iter().any(is_key),
        ast::Expr::Call(c) => c.args.iter().any(|a| is_key(a) || matches!(a, ast::Expr::Tuple(t) if t.elts.iter().any(is_key))),
        other => is_key(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cases_without(text: &str, key: &str) -> Option<String> {
        without_cases("tests/test_c.py", text, "tests/test_c.py::test_color", key)
    }

    #[test]
    fn parametrize_values_holding_the_key_go() {
        let text = "import pytest\n\n\n@pytest.mark.parametrize(\n    \"color, code\",\n    [\n        (\"red\", 31),\n        (\"green\", 32),\n        pytest.param(\"red\", 91, id=\"bright\"),\n    ],\n)\ndef test_color(color, code):\n    assert code\n";
        let out = cases_without(text, "red").unwrap();
        assert!(out.contains("(\"green\", 32)"));
        assert!(!out.contains("\"red\""), "{out}");
        assert_eq!(cases_without(text, "blue"), None);
    }

    #[test]
    fn a_list_left_empty_is_no_site() {
        let text = "import pytest\n\n\n@pytest.mark.parametrize(\"color\", [\"red\"])\ndef test_color(color):\n    assert color\n";
        assert_eq!(cases_without(text, "red"), None);
    }

    #[test]
    fn tables_are_string_keyed_dicts_of_a_few_entries() {
        let text = "COLORS = {\n    \"red\": 31,\n    \"green\": 32,\n    \"blue\": 34,\n}\nPAIR = {\"a\": 1, \"b\": 2}\nMIXED = {\"a\": 1, 2: 2, \"c\": 3}\n";
        let module = PyModule::parse("m.py", text).unwrap();
        let found = tables(&module);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "COLORS");
        let keys: Vec<&str> = found[0].entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["red", "green", "blue"]);
        assert_eq!(found[0].entries[0].spelled, "\"red\"");
    }

    #[test]
    fn classes_of_upper_case_constants_are_tables() {
        let text = "class Fore:\n    BLACK = 30\n    RED = 31\n    GREEN = -32\n    _hidden = 1\n\n    def reset(self):\n        return 0\n\n\nclass Config:\n    timeout = 3\n    retries = 2\n    name = 'x'\n\n\nclass Pair:\n    A = 1\n    B = 2\n";
        let module = PyModule::parse("m.py", text).unwrap();
        let found = tables(&module);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "Fore");
        assert_eq!(found[0].symbol(1), "Fore.RED");
        let without = found[0].without(&module, 1).unwrap();
        assert!(!without.contains("RED") && without.contains("GREEN = -32"), "{without}");
    }

    #[test]
    fn a_plain_test_loses_only_the_statements_naming_the_key() {
        let text = "def test_codes():\n    \"Every code.\"\n    assert FORE.RED == 31\n    assert FORE.LIGHTRED == 91\n    check('RED')\n\n\ndef test_red():\n    assert FORE.RED == 31\n";
        let id = "tests/test_c.py::test_codes";
        let out = without_lines_naming("tests/test_c.py", text, id, "RED").unwrap();
        assert!(out.contains("LIGHTRED") && !out.contains("check('RED')"), "{out}");
        assert!(out.contains("def test_red():\n    assert FORE.RED == 31"), "{out}");
        // A test naming nothing else goes whole (the caller's business).
        assert_eq!(without_lines_naming("tests/test_c.py", text, "tests/test_c.py::test_red", "RED"), None);
        assert_eq!(without_lines_naming("tests/test_c.py", text, id, "BLUE"), None);
    }
}
