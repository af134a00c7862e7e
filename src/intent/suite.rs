//! The test functions of a test file (and every test id of a tree) as pytest names them,
//! and taking some of them out by AST splice.
//!
//! A test is a module-level `test*` function (`path::test_x`) or a `test*` method of a
//! module-level class named `Test*` or deriving from a base (`path::TestX::test_y`; a
//! `unittest.TestCase`). Ids carry no parametrize suffix. Everything else in a test file
//! (fixtures, helpers, module-level statements, a class's decorators, bases and non-test
//! members) is support code. Taking tests out removes whole functions, decorators
//! included; a class left without tests goes whole, with its support members (they
//! served only those tests).

use std::collections::BTreeSet;

use rustpython_ast as ast;

use super::strip;
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// A test function of a file.
pub(crate) struct TestFn<'a> {
    /// The pytest node id without parametrize suffix (`tests/test_a.py::TestA::test_b`).
    pub(crate) id: String,
    /// The enclosing class, for a method.
    pub(crate) class: Option<&'a str>,
    pub(crate) stmt: &'a ast::Stmt,
}

/// The node id of a test without its parametrize suffix (`test_x[1-2]` → `test_x`).
pub(crate) fn without_params(id: &str) -> &str {
    // The suffix may hold `::` itself; it starts at the first `[` after the path.
    let names = id.find("::").map_or(id.len(), |i| i + 2);
    match id[names..].find('[') {
        Some(i) => &id[..names + i],
        None => id,
    }
}

fn def_name(stmt: &ast::Stmt) -> Option<&str> {
    match stmt {
        ast::Stmt::FunctionDef(d) => Some(d.name.as_str()),
        ast::Stmt::AsyncFunctionDef(d) => Some(d.name.as_str()),
        _ => None,
    }
}

fn is_test_name(name: &str) -> bool {
    name.starts_with("test")
}

/// Whether a module-level class holds tests for pytest.
pub(crate) fn is_test_class(class: &ast::StmtClassDef) -> bool {
    class.name.starts_with("Test") || !class.bases.is_empty()
}

/// The test functions of a parsed test file, in source order.
pub(crate) fn tests<'a>(module: &'a PyModule) -> Vec<TestFn<'a>> {
    let mut out = Vec::new();
    for stmt in &module.suite {
        match stmt {
            ast::Stmt::ClassDef(class) if is_test_class(class) => {
                for member in &class.body {
                    if let Some(name) = def_name(member).filter(|n| is_test_name(n)) {
                        let id = format!("{}::{}::{name}", module.path, class.name);
                        out.push(TestFn { id, class: Some(class.name.as_str()), stmt: member });
                    }
                }
            }
            _ => {
                if let Some(name) = def_name(stmt).filter(|n| is_test_name(n)) {
                    out.push(TestFn { id: format!("{}::{name}", module.path), class: None, stmt });
                }
            }
        }
    }
    out
}

/// Whether a statement is an import (support code that intents edit on their own).
pub(crate) fn is_import(stmt: &ast::Stmt) -> bool {
    matches!(stmt, ast::Stmt::Import(_) | ast::Stmt::ImportFrom(_))
}

/// The support code of a test file: every module-level statement that is neither a test
/// nor an import, a test class's header and its non-test members.
pub(crate) fn support(module: &PyModule) -> Vec<Support<'_>> {
    let mut out = Vec::new();
    for stmt in &module.suite {
        match stmt {
            ast::Stmt::ClassDef(class) if is_test_class(class) => {
                out.push(Support::ClassHeader(stmt));
                for member in &class.body {
                    if !def_name(member).is_some_and(is_test_name) {
                        out.push(Support::Stmt(member));
                    }
                }
            }
            _ if is_import(stmt) => {}
            _ if def_name(stmt).is_some_and(is_test_name) => {}
            _ => out.push(Support::Stmt(stmt)),
        }
    }
    out
}

/// A piece of support code.
pub(crate) enum Support<'a> {
    Stmt(&'a ast::Stmt),
    /// A test class's decorators, bases and keywords (not its body).
    ClassHeader(&'a ast::Stmt),
}

impl<'a> Support<'a> {
    /// The identifiers the piece uses.
    pub(crate) fn uses(&self) -> Vec<super::refs::Use<'a>> {
        match self {
            Support::Stmt(stmt) => super::refs::uses_of(stmt),
            Support::ClassHeader(stmt) => super::refs::header_uses(stmt),
        }
    }
}

/// The text of a test file without the tests `ids` (ids of other files and tests it does
/// not have are ignored). `None` when the file would be left without tests, an emptied
/// class is named elsewhere in the file (a base of another), or a splice fails.
pub(crate) fn without_tests(path: &str, text: &str, ids: &BTreeSet<String>) -> Option<String> {
    let module = PyModule::parse(path, text).ok()?;
    let all = tests(&module);
    let removed: BTreeSet<&str> = all.iter().filter(|t| ids.contains(&t.id)).map(|t| t.id.as_str()).collect();
    if removed.is_empty() {
        return Some(text.to_string());
    }
    if removed.len() == all.len() {
        return None;
    }
    let classes: BTreeSet<&str> = all.iter().filter_map(|t| t.class).collect();
    let emptied: BTreeSet<&str> = classes
        .into_iter()
        .filter(|class| all.iter().filter(|t| t.class == Some(class)).all(|t| removed.contains(t.id.as_str())))
        .collect();
    let names_used: BTreeSet<&str> =
        super::refs::uses(&module.suite).iter().filter(|u| u.how != super::refs::How::Store).map(|u| u.name).collect();
    if emptied.iter().any(|class| names_used.contains(class)) {
        return None;
    }
    // Each removal re-parses, so the targets are named, not located.
    let mut targets: Vec<(Option<String>, String)> = emptied.iter().map(|c| (None, c.to_string())).collect();
    for test in all.iter().filter(|t| removed.contains(t.id.as_str())) {
        if !test.class.is_some_and(|c| emptied.contains(c)) {
            targets.push((test.class.map(str::to_string), def_name(test.stmt)?.to_string()));
        }
    }
    let mut text = text.to_string();
    for (class, name) in targets {
        let module = PyModule::parse(path, &text).ok()?;
        text = without_member(&module, class.as_deref(), &name)?;
    }
    Some(text)
}

/// `module`'s text without the module-level definition `name`, or the method `name` of
/// the module-level class `class`. `None` when it is not there or the class would be
/// left with nothing but a docstring.
pub(crate) fn without_member(module: &PyModule, class: Option<&str>, name: &str) -> Option<String> {
    let defines = |stmt: &ast::Stmt, wanted: &str| match stmt {
        ast::Stmt::ClassDef(c) => c.name.as_str() == wanted,
        other => def_name(other) == Some(wanted),
    };
    let Some(class) = class else {
        let index = module.suite.iter().position(|s| defines(s, name))?;
        return strip::without_statement(module, &module.suite, index);
    };
    let body = module.suite.iter().find_map(|s| match s {
        ast::Stmt::ClassDef(c) if c.name.as_str() == class => Some(&c.body),
        _ => None,
    })?;
    let index = body.iter().position(|s| defines(s, name))?;
    let left = body.iter().enumerate().filter(|(i, s)| *i != index && !crate::python::walk::is_docstring(s)).count();
    if left == 0 {
        return None;
    }
    strip::without_statement(module, body, index)
}

/// Every test id of a tree's test files (no parametrize suffix).
pub(crate) fn test_ids(tree: &Snapshot) -> BTreeSet<String> {
    tree.keys()
        .filter(|p| p.ends_with(".py") && snapshot::is_test_file(p))
        .filter_map(|p| PyModule::parse(p, snapshot::text_of(tree, p)?).ok())
        .flat_map(|m| tests(&m).into_iter().map(|t| t.id).collect::<Vec<_>>())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parametrize_suffixes_are_dropped() {
        assert_eq!(without_params("tests/t.py::T::test_x[a::b-1]"), "tests/t.py::T::test_x");
        assert_eq!(without_params("tests/t.py::test_x"), "tests/t.py::test_x");
    }

    #[test]
    fn an_emptied_class_goes_whole() {
        let text =
            "import pytest\n\n\nclass TestA:\n    @pytest.fixture\n    def thing(self):\n        return 1\n\n    \
                    def test_a(self, thing):\n        assert thing\n\n\ndef test_b():\n    pass\n";
        let ids: BTreeSet<String> = ["t/test_x.py::TestA::test_a".to_string()].into();
        let got = without_tests("t/test_x.py", text, &ids).unwrap();
        assert_eq!(got, "import pytest\n\n\ndef test_b():\n    pass\n");
        let all: BTreeSet<String> =
            ["t/test_x.py::TestA::test_a".to_string(), "t/test_x.py::test_b".to_string()].into();
        assert_eq!(without_tests("t/test_x.py", text, &all), None);
    }
}
