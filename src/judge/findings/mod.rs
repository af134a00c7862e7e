//! Static findings against gold: what a reviewer rejects that the tests accept.
//!
//! On every Python file where the tree differs from gold (or that only the tree has),
//! two kinds of check run on both versions:
//! - a pinned **ruff** ([`ruff`]) with the rules [`ruff::RULES`]: redefinition (F811),
//!   repeated dictionary keys (F601, F602), undefined name (F821), unused import (F401),
//!   unused local (F841);
//! - the project's own AST checks ([`checks`], [`repeated`]): `unreachable` (a
//!   statement after `return`/`raise`/`continue`/`break` in the same block),
//!   `overwritten` (an assignment whose name the next statement assigns again before
//!   any read; literal constants exempt), `repeated-block` (a run of two or more
//!   statements, or a `for` loop over the same iterable, repeated in a function more
//!   often than in gold's version of it) and `syntax` (the tree's file does not parse
//!   where gold's does; its other checks are then skipped).
//!
//! A finding is about a named thing ([`Finding::name`]: the undefined or redefined name,
//! the function as `Class.method`, `<module>` at top level). The tree's findings minus
//! gold's, matched as multisets of (file, rule, name) and never by line, are what the
//! tree is charged with: a resolution shaped unlike gold (a renamed local, reordered
//! imports, an extracted helper) keeps gold's findings without new ones.

pub(crate) mod checks;
mod finding;
pub(crate) mod repeated;
pub(crate) mod ruff;

use anyhow::Result;
use rustpython_ast as ast;
use rustpython_parser::Parse;

use crate::python::PyModule;
use crate::snapshot::Snapshot;
pub(crate) use finding::Finding;
use finding::{subtract, MODULE};

/// The findings `tree` has and `gold` has not, on every Python file where they differ.
pub(crate) fn findings(tree: &Snapshot, gold: &Snapshot) -> Result<Vec<Finding>> {
    let changed = changed_python(tree, gold);
    if changed.is_empty() {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    // The files ruff reads.
    let mut linted: Vec<ruff::Versions<'_>> = Vec::new();
    for path in changed {
        let tree_bytes = &tree[path];
        let gold_bytes = gold.get(path).map(|b| &b[..]);
        let tree_text = std::str::from_utf8(tree_bytes).ok();
        let gold_text = gold_bytes.map(std::str::from_utf8);
        let gold_module = match gold_text {
            Some(Ok(text)) => PyModule::parse(path, text).ok(),
            Some(Err(_)) => None,
            None => PyModule::parse(path, "").ok(),
        };
        let tree_module = tree_text.map(|text| PyModule::parse(path, text));
        match (tree_module, gold_module) {
            (Some(Ok(tree_module)), Some(gold_module)) => {
                found.extend(module_findings(&tree_module, &gold_module));
                linted.push(ruff::Versions { path, tree: tree_bytes, gold: gold_bytes });
            }
            // Gold's file does not parse: no AST to compare with, only ruff's findings.
            (_, None) => linted.push(ruff::Versions { path, tree: tree_bytes, gold: gold_bytes }),
            (tree_parse, Some(_)) => found.push(syntax_finding(path, tree_text, tree_parse.and_then(Result::err))),
        }
    }
    found.extend(ruff::findings(&linted)?);
    found.sort();
    Ok(found)
}

/// The `.py` files the tree has whose bytes differ from gold's (or that gold has not).
fn changed_python<'a>(tree: &'a Snapshot, gold: &Snapshot) -> Vec<&'a str> {
    tree.iter()
        .filter(|(path, data)| path.ends_with(".py") && gold.get(path.as_str()) != Some(data))
        .map(|(path, _)| path.as_str())
        .collect()
}

/// The AST findings of one parsed tree file that its gold version has not.
fn module_findings(tree: &PyModule, gold: &PyModule) -> Vec<Finding> {
    let mut found = subtract(checks::findings(tree), checks::findings(gold));
    found.extend(repeated::findings(tree, gold));
    found
}

/// The `syntax` finding of a tree file that does not parse (`parse_error`: the parser's
/// message; `None` when the file is not UTF-8).
fn syntax_finding(path: &str, text: Option<&str>, parse_error: Option<String>) -> Finding {
    let markers = text.is_some_and(|text| {
        text.lines().any(|line| ["<<<<<<< ", ">>>>>>> ", "||||||| "].iter().any(|m| line.starts_with(m)))
    });
    let line = text.and_then(|text| error_line(path, text)).unwrap_or(1);
    let cause = match (markers, parse_error) {
        (true, _) => "conflict markers are left in it".to_string(),
        (false, Some(error)) => error.strip_prefix(&format!("{path}: ")).unwrap_or(&error).to_string(),
        (false, None) => "it is not UTF-8".to_string(),
    };
    Finding {
        path: path.to_string(),
        rule: "syntax".to_string(),
        name: MODULE.to_string(),
        line,
        message: format!("does not parse where gold's version does: {cause}"),
    }
}

/// The line of the first syntax error in `text`.
fn error_line(path: &str, text: &str) -> Option<usize> {
    let error = ast::Suite::parse(text, path).err()?;
    let offset = error.offset.to_usize().min(text.len());
    Some(text.as_bytes()[..offset].iter().filter(|b| **b == b'\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn only_changed_python_files_are_read() {
        let snapshot = |files: &[(&str, &str)]| -> Snapshot {
            files.iter().map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes()))).collect()
        };
        let tree = snapshot(&[("a.py", "x\n"), ("b.py", "new\n"), ("c.py", "same\n"), ("d.txt", "x")]);
        let gold = snapshot(&[("a.py", "y\n"), ("c.py", "same\n"), ("d.txt", "y"), ("e.py", "gone\n")]);
        assert_eq!(changed_python(&tree, &gold), vec!["a.py", "b.py"]);
    }

    #[test]
    fn a_syntax_finding_names_left_markers() {
        let text = "x = 1\n<<<<<<< ours\ny = 2\n=======\ny = 3\n>>>>>>> theirs\n";
        let error = PyModule::parse("a.py", text).err();
        let found = syntax_finding("a.py", Some(text), error);
        assert_eq!((found.line, found.name.as_str()), (2, MODULE));
        assert!(found.message.contains("conflict markers"), "{}", found.message);
    }
}
