//! `rename-method` (refactor): a method of a class of a source module gets the name a
//! developer would pick ([`naming::synonym`]), with every override of it and every
//! attribute access of that name in every Python file of the tree (sources and tests),
//! so the unchanged suite passes.
//!
//! Python cannot tell statically which object an access `x.name` reaches, so the rename
//! is made where the name can only be this method's:
//! - every `def` of the name in the tree is a method, directly in a class body (the
//!   method, its overrides and the base methods it overrides are renamed together);
//! - every other whole-word occurrence is an attribute (`obj.name`, `super().name`,
//!   `Class.name`), a plain string naming it as the second argument of `getattr`,
//!   `hasattr`, `setattr`, `delattr` or of a call ending in `.object`, `.setattr` or
//!   `.delattr` (`patch.object(Class, "name")`, `monkeypatch.setattr`), a dotted string
//!   ending in `Class.name` for one of the defining classes (`mock.patch`), or a mention
//!   in a comment or docstring (in backticks, followed by `(`, or on a doctest line;
//!   other prose is left as written);
//! - the name is not an attribute of Python's builtin types or of a common
//!   standard-library class or module (`rename_method/external_attributes.txt`): an
//!   access of such a name may be the library's (`sys.stdout.write`), and a method of
//!   such a name often implements a protocol the library calls (`Formatter.format`).
//!
//! Anything else (a bare name, a keyword argument such as `stub(name=...)`, another
//! string, a module-level function of the name) makes the name ambiguous: no site. So do
//! names shorter than three characters, dunders, a new name that already occurs anywhere,
//! a file mentioning the name that does not parse, and a rename that would widen a file
//! past its widest line (or 79 columns). Dynamic access (`getattr(x, computed)`) is not
//! followed: the suite decides.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use rustpython_ast as ast;

use super::kind::Kind;
use super::naming::{self, occurrences, occurs};
use super::rename::{checked_edits, lines_of, plain_string_start, renamed_tree, spliced, string_value, File, Files};
use super::site::{Change, Rewrites, Site, Transform, Workspace};
use crate::python::walk::{owned_exprs, walk_stmts};
use crate::python::PyModule;
use crate::snapshot::Snapshot;

pub(crate) struct RenameMethod;

impl Transform for RenameMethod {
    fn change(&self) -> Change {
        Change::Refactor(Rewrites::Method)
    }

    fn description(&self) -> &'static str {
        "renames a method with its overrides and every attribute access of its name, tests included"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let files = Files::of(workspace.tree);
        let taken: BTreeSet<&str> = files.all.iter().flat_map(|f| naming::all_words(f.text)).collect();
        let mut seen = BTreeSet::new();
        let mut sites = Vec::new();
        for module in workspace.modules {
            for (class, method) in methods(module) {
                let name = method.name;
                if !seen.insert(name) || is_external(name) || !naming::is_renamable(name) {
                    continue;
                }
                let Some(new) = naming::synonym(name).filter(|new| !taken.contains(new.as_str())) else { continue };
                let planned = plan(&files, &module.path, class, name);
                if planned.is_ok_and(|edits| spliced(&files, &edits, name, &new).is_some()) {
                    sites.push(Site {
                        kind: Kind::RenameMethod,
                        path: module.path.clone(),
                        symbol: format!("{class}.{name}"),
                        lines: lines_of(module, method.stmt),
                        uses: BTreeSet::from([name.to_string()]),
                        target: Some(new),
                        tests: Vec::new(),
                    });
                }
            }
        }
        sites.sort_by_key(|s| (s.path.clone(), s.lines.start, s.symbol.clone()));
        sites
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let (class, old) = site.symbol.rsplit_once('.')?;
        let new = site.target.as_deref()?;
        let files = Files::of(tree);
        if is_external(old) || naming::is_reserved(new) || files.all.iter().any(|f| occurs(f.text, new)) {
            return None;
        }
        let edits = plan(&files, &site.path, class, old).ok()?;
        renamed_tree(tree, &files, &edits, old, new)
    }

    fn message(&self, site: &Site) -> String {
        let new = site.target.as_deref().unwrap_or_default();
        match site.symbol.rsplit_once('.') {
            Some((class, old)) => format!("Rename `{class}.{old}` to `{class}.{new}`"),
            None => format!("Rename `{}` to `{new}`", site.symbol),
        }
    }
}

/// Whether `name` is an attribute of a builtin type or a common standard-library class
/// or module.
fn is_external(name: &str) -> bool {
    static NAMES: OnceLock<BTreeSet<&'static str>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            include_str!("rename_method/external_attributes.txt").lines().filter(|l| !l.starts_with('#')).collect()
        })
        .contains(name)
}

/// A method: its `def` statement and name.
struct Method<'m> {
    stmt: &'m ast::Stmt,
    name: &'m str,
}

/// The methods of a module's classes (nested classes included), with their class's name.
fn methods(module: &PyModule) -> Vec<(&str, Method<'_>)> {
    let mut stmts = Vec::new();
    walk_stmts(&module.suite, &mut stmts);
    let mut out = Vec::new();
    for stmt in stmts {
        let ast::Stmt::ClassDef(class) = stmt else { continue };
        for member in &class.body {
            let name = match member {
                ast::Stmt::FunctionDef(d) => d.name.as_str(),
                ast::Stmt::AsyncFunctionDef(d) => d.name.as_str(),
                _ => continue,
            };
            out.push((class.name.as_str(), Method { stmt: member, name }));
        }
    }
    out
}

/// The offset of the name in a `def` statement's header (after `def`).
fn def_name_at(module: &PyModule, stmt: &ast::Stmt, name: &str) -> Option<usize> {
    let span = PyModule::span(stmt);
    let text = &module.text[span.clone()];
    occurrences(text, name).into_iter().find(|&at| text[..at].trim_end().ends_with("def")).map(|at| span.start + at)
}

/// Where renaming method `old` of `class` (in `path`) edits each file; `Err` says why
/// the name is ambiguous.
fn plan(files: &Files, path: &str, class: &str, old: &str) -> Result<BTreeMap<String, BTreeSet<usize>>, String> {
    let home = files.get(path).and_then(File::parsed).ok_or("no such module")?;
    if !methods(&home.module).iter().any(|(c, m)| *c == class && m.name == old) {
        return Err(format!("`{class}` has no method `{old}`"));
    }
    let users: Vec<&File> = files.all.iter().filter(|f| occurs(f.text, old)).collect();
    let mut classes = BTreeSet::new();
    for file in &users {
        let parsed = file.parsed().ok_or_else(|| format!("{}: does not parse", file.path))?;
        let defining = methods(&parsed.module).into_iter().filter(|(_, m)| m.name == old);
        classes.extend(defining.map(|(c, _)| c.to_string()));
    }
    let mut edits = BTreeMap::new();
    for file in users {
        edits.insert(file.path.to_string(), edits_in(file, old, &classes)?);
    }
    Ok(edits)
}

/// The offsets of `old` to rename in one file (its `def`s in class bodies, attributes,
/// strings naming it, prose); `Err` if the file uses it otherwise.
fn edits_in(file: &File, old: &str, classes: &BTreeSet<String>) -> Result<BTreeSet<usize>, String> {
    let parsed = file.parsed().ok_or_else(|| format!("{}: does not parse", file.path))?;
    let module = &parsed.module;
    let defs = methods(module).into_iter().filter(|(_, m)| m.name == old);
    let edits = defs.filter_map(|(_, m)| def_name_at(module, m.stmt, old)).collect();
    checked_edits(file, parsed, old, edits, |stmt, edits| {
        edits.extend(owned_exprs(stmt).into_iter().filter_map(|expr| expr_edit(module, expr, old, classes)));
    })
}

/// The rename an expression itself needs (its sub-expressions are visited apart): an
/// attribute of the name, the name as a string in an attribute-naming call, or a dotted
/// string ending in one of `classes` and the name.
fn expr_edit(module: &PyModule, expr: &ast::Expr, old: &str, classes: &BTreeSet<String>) -> Option<usize> {
    match expr {
        ast::Expr::Attribute(a) if a.attr.as_str() == old => Some(PyModule::span(a).end - old.len()),
        ast::Expr::Call(call) if call.args.len() >= 2 && names_attribute(&call.func) => {
            (string_value(&call.args[1]) == Some(old)).then(|| plain_string_start(module, &call.args[1], old))?
        }
        ast::Expr::Constant(_) => {
            let value = string_value(expr)?;
            let (prefix, last) = value.rsplit_once('.')?;
            let owner = prefix.rsplit('.').next().unwrap_or(prefix);
            (last == old && prefix.contains('.') && classes.contains(owner))
                .then(|| plain_string_start(module, expr, value).map(|s| s + prefix.len() + 1))?
        }
        _ => None,
    }
}

/// Whether a call's second argument names an attribute of its first: `getattr`,
/// `hasattr`, `setattr`, `delattr`, and calls ending in `.object`, `.setattr` or
/// `.delattr` (`patch.object`, `monkeypatch.setattr`).
fn names_attribute(func: &ast::Expr) -> bool {
    match func {
        ast::Expr::Name(n) => matches!(n.id.as_str(), "getattr" | "hasattr" | "setattr" | "delattr"),
        ast::Expr::Attribute(a) => matches!(a.attr.as_str(), "object" | "setattr" | "delattr"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_and_standard_library_attributes_are_external() {
        for name in ["write", "format", "append", "info", "emit", "join"] {
            assert!(is_external(name), "{name}");
        }
        for name in ["_repr", "bind_context", "render_value"] {
            assert!(!is_external(name), "{name}");
        }
    }
}
