//! Definitions an edit left unused, taken out after it: a name the file used before the
//! edit and uses no more. Never a name that was already unused (an `__init__.py`
//! re-export, an `autouse` fixture), never one bound twice in the file, never one
//! another file uses.
//!
//! What may go: imports, anywhere in the file; in a test file, module-level helpers,
//! fixtures, constants and non-test classes; in a source file, private (`_name`)
//! module-level functions, classes and constants, and private methods of module-level
//! classes. Uses are counted as identifiers: names read, attributes, parameters (pytest
//! asks for fixtures by parameter) and identifier-like strings (`__all__`, string
//! annotations), so a doubt keeps a definition.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rustpython_ast as ast;

use super::refs::{self, How};
use super::strip;
use super::units::Files;
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// A definition that may go, and how to take it out.
struct Candidate {
    name: String,
    place: Place,
}

enum Place {
    /// Name `alias` of the import statement `stmt` (an index into
    /// `PyModule::statements`).
    Import { stmt: usize, alias: usize },
    /// A module-level statement.
    Module { index: usize },
    /// A method of a module-level class.
    Method { class: usize, index: usize },
}

/// How often each identifier is used in a module (definitions' own names excluded),
/// counting attribute reads (`x.name`) when `attributes` says so.
fn counts(module: &PyModule, attributes: bool) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for u in refs::uses(&module.suite) {
        if u.how != How::Store && (attributes || u.how != How::Attribute) {
            *out.entry(u.name.to_string()).or_default() += 1;
        }
    }
    out
}

/// `text` (the file at `path` after an edit; `before` is the file before it) without the
/// definitions the edit left unused; `elsewhere(name)` says whether another file uses a
/// definition of this file by that name. `None` when a removal would break the file.
pub(crate) fn prune(
    path: &str,
    before: &str,
    text: String,
    test_file: bool,
    elsewhere: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let old = PyModule::parse(path, before).ok()?;
    // An import binds a name in this file only: `attr.astuple` does not read the
    // `astuple` imported beside it. Other definitions may be read as attributes (a
    // class's, the module's), so for them an attribute of the name counts.
    let used_before = [counts(&old, false), counts(&old, true)];
    let mut text = text;
    loop {
        let module = PyModule::parse(path, &text).ok()?;
        let now = [counts(&module, false), counts(&module, true)];
        let candidates = candidates(&module, test_file);
        let mut bound: BTreeMap<&str, usize> = BTreeMap::new();
        for c in &candidates {
            *bound.entry(c.name.as_str()).or_default() += 1;
        }
        let Some(unused) = candidates.iter().find(|c| {
            let counted = usize::from(!matches!(c.place, Place::Import { .. }));
            used_before[counted].get(&c.name).is_some_and(|n| *n > 0)
                && !now[counted].contains_key(c.name.as_str())
                && bound[c.name.as_str()] == 1
                && !defined_twice(&module, &c.name)
                && !elsewhere(&c.name)
        }) else {
            return Some(text);
        };
        text = remove(&module, &unused.place)?;
    }
}

/// Whether a name is bound by more than one statement at module level (a `try`/`except
/// ImportError` fallback, a conditional definition).
fn defined_twice(module: &PyModule, name: &str) -> bool {
    let mut count = 0;
    for stmt in refs::statements(&module.suite) {
        count += match stmt {
            ast::Stmt::FunctionDef(d) => usize::from(d.name.as_str() == name),
            ast::Stmt::AsyncFunctionDef(d) => usize::from(d.name.as_str() == name),
            ast::Stmt::ClassDef(d) => usize::from(d.name.as_str() == name),
            _ => 0,
        };
    }
    let stores = refs::uses(&module.suite).iter().filter(|u| u.how == How::Store && u.name == name).count();
    count + stores > 1
}

fn is_private(name: &str) -> bool {
    name.starts_with('_') && !name.starts_with("__")
}

/// The single name a module-level statement defines, if it defines exactly one.
fn defined_name(stmt: &ast::Stmt) -> Option<&str> {
    match stmt {
        ast::Stmt::FunctionDef(d) => Some(d.name.as_str()),
        ast::Stmt::AsyncFunctionDef(d) => Some(d.name.as_str()),
        ast::Stmt::ClassDef(d) => Some(d.name.as_str()),
        ast::Stmt::Assign(a) if a.targets.len() == 1 => match &a.targets[0] {
            ast::Expr::Name(n) => Some(n.id.as_str()),
            _ => None,
        },
        ast::Stmt::AnnAssign(a) if a.value.is_some() => match a.target.as_ref() {
            ast::Expr::Name(n) => Some(n.id.as_str()),
            _ => None,
        },
        _ => None,
    }
}

fn candidates(module: &PyModule, test_file: bool) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (stmt, site) in module.statements().iter().enumerate() {
        let aliases = match site.stmt {
            ast::Stmt::Import(i) => {
                i.names.iter().map(|a| a.asname.as_ref().unwrap_or(&a.name).split('.').next().unwrap_or("")).collect()
            }
            ast::Stmt::ImportFrom(i) => i.names.iter().map(|a| a.asname.as_ref().unwrap_or(&a.name).as_str()).collect(),
            _ => Vec::new(),
        };
        for (alias, name) in aliases.into_iter().enumerate() {
            if name != "*" && site.function.is_none() {
                out.push(Candidate { name: name.to_string(), place: Place::Import { stmt, alias } });
            }
        }
    }
    for (index, stmt) in module.suite.iter().enumerate() {
        let Some(name) = defined_name(stmt) else { continue };
        let keep = if test_file {
            name.starts_with("test")
                || name.starts_with("__")
                || name == "pytestmark"
                || matches!(stmt, ast::Stmt::ClassDef(c) if super::suite::is_test_class(c))
        } else {
            !is_private(name)
        };
        if !keep {
            out.push(Candidate { name: name.to_string(), place: Place::Module { index } });
        }
        if let ast::Stmt::ClassDef(class) = stmt {
            if test_file {
                continue;
            }
            for (member, m) in class.body.iter().enumerate() {
                if let Some(name) = defined_name(m).filter(|n| is_private(n)) {
                    out.push(Candidate {
                        name: name.to_string(),
                        place: Place::Method { class: index, index: member },
                    });
                }
            }
        }
    }
    out
}

fn remove(module: &PyModule, place: &Place) -> Option<String> {
    match place {
        Place::Import { stmt, alias } => {
            let sites = module.statements();
            let site = &sites[*stmt];
            strip::without_import_name(module, site.block, site.index, *alias)
        }
        Place::Module { index } => strip::without_statement(module, &module.suite, *index),
        Place::Method { class, index } => {
            let ast::Stmt::ClassDef(c) = &module.suite[*class] else { return None };
            let left = c.body.iter().enumerate().filter(|(i, s)| i != index && !crate::python::walk::is_docstring(s));
            if left.count() == 0 {
                return None;
            }
            strip::without_statement(module, &c.body, *index)
        }
    }
}

/// Writes each edited file (path → new text) into `out`, pruned of what its edit left
/// unused (`before` holds the files as they were, and says what other files use), and
/// parse-checked; `None` when one cannot be.
pub(super) fn write_pruned(before: &Snapshot, out: &mut Snapshot, edits: BTreeMap<String, String>) -> Option<()> {
    let files = Files::new(before);
    for (path, text) in edits {
        let old = files.text(&path)?;
        let text = prune(&path, old, text, snapshot::is_test_file(&path), &|n| files.used_from(&path, n))?;
        if !crate::python::parses(&text, &path) {
            return None;
        }
        out.insert(path, Arc::from(text.as_bytes()));
    }
    Some(())
}

/// `tree` with the file at `path` replaced by `text` (a feature's unit taken out) and the
/// test functions `tests` taken out of their files, each edited file pruned of what the
/// edits left unused; `None` when a test file would be left without tests or a file
/// would not parse. A listed test another change already took out with its file is gone.
pub(super) fn feature_taken_out(tree: &Snapshot, path: &str, text: String, tests: &[String]) -> Option<Snapshot> {
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    texts.insert(path.to_string(), text);
    let ids: BTreeSet<String> = tests.iter().cloned().collect();
    let test_paths: BTreeSet<&str> = ids.iter().filter_map(|id| id.split_once("::").map(|(p, _)| p)).collect();
    for test_path in test_paths {
        let Some(old) = snapshot::text_of(tree, test_path) else { continue };
        let edited = super::suite::without_tests(test_path, old, &ids)?;
        if edited != old {
            texts.insert(test_path.to_string(), edited);
        }
    }
    let mut out = tree.clone();
    write_pruned(tree, &mut out, texts)?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_edit_left_unused_goes() {
        let before = "import math\nimport os\nimport re\n\n\ndef _half(x):\n    return x / 2\n\n\n\
                      def area(r):\n    return _half(math.pi * r * r)\n\n\ndef f():\n    return re\n";
        let after = "import math\nimport os\nimport re\n\n\ndef _half(x):\n    return x / 2\n\n\n\
                     def f():\n    return re\n";
        let got = prune("m.py", before, after.to_string(), false, &|_| false).unwrap();
        assert_eq!(got, "import os\nimport re\n\n\ndef f():\n    return re\n");
    }

    #[test]
    fn an_import_read_only_as_another_module_attribute_goes() {
        let before = "import attr\nfrom attr import astuple\n\n\ndef test_a():\n    assert astuple(1)\n\n\ndef test_b():\n    assert attr.astuple(2)\n";
        let after = "import attr\nfrom attr import astuple\n\n\ndef test_b():\n    assert attr.astuple(2)\n";
        let got = prune("tests/test_m.py", before, after.to_string(), true, &|_| false).unwrap();
        assert_eq!(got, "import attr\n\n\ndef test_b():\n    assert attr.astuple(2)\n");
    }
}
