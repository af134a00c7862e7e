//! `rename-param` (refactor): a parameter of one function or method of a source module
//! gets the name a developer would pick ([`naming::synonym`]): in the signature, in the
//! function's body, in its docstring's parameter list, and at every call in the tree
//! (sources and tests) that passes it by keyword, so the unchanged suite passes.
//!
//! Within the function the rules of `rename-local` hold: every `Name` node of the
//! parameter in the function's own scope is renamed, with its mentions in the function's
//! comments and docstring (in backticks or followed by `(`), and its entries in the
//! docstring's parameter list (`name:` or `name (type):` opening a line, `:param name:`,
//! `:type name:`, numpydoc's `name : type`) and as `*name*` in its prose.
//!
//! Keyword arguments renamed: `old=` in a call whose callee is spelled with the
//! function's name (`f(...)`, `obj.f(...)`; the class's name for `__init__`), and in
//! `partial(f, old=...)`. A subclass's `super().__init__(old=...)` is not followed.
//!
//! No site for `self`, `cls`, `*args` and `**kwargs`; for a name shorter than three
//! characters, rebound another way (`import`, `global`, a comprehension target),
//! mentioned in a nested function, lambda or class, or printed by an f-string
//! (`f"{old=}"`); for a function that reads its own frame or shares its qualified name
//! (a property's setter); when another function of the tree with the same name has a
//! parameter of that name too (its keyword calls could not be told apart); nor when the
//! new name is reserved, a module-level name, or occurs in the function. A call that
//! passes the parameter another way (`**options`) is left as written: the suite decides.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rustpython_ast as ast;

use super::kind::Kind;
use super::naming::{self, occurs};
use super::rename_local::{at_site, function_sites, spliced, Function, InFunction, reads_own_frame};
use super::site::{Change, Rewrites, Site, Transform, Workspace};
use crate::python::walk::{expr_children, owned_exprs, parameters, walk_stmts};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

pub(crate) struct RenameParam;

impl Transform for RenameParam {
    fn change(&self) -> Change {
        Change::Refactor(Rewrites::Parameter)
    }

    fn description(&self) -> &'static str {
        "renames a parameter of one function, with its keyword arguments at every call"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        // A site whose keyword calls cannot be told apart from a namesake's never applies.
        let sites = function_sites(Kind::RenameParam, workspace.modules, |at| renames(at.function), plan);
        sites.into_iter().filter(|site| self.apply(workspace, workspace.tree, site).is_some()).collect()
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let (edits, old, new) = at_site(tree, site, |at, old, new| {
            let own = plan(at, old, new)?;
            let mut edits = keyword_edits(tree, &callee_name(at.function)?, old)?;
            edits.entry(site.path.clone()).or_default().extend(own);
            Some((edits, old.to_string(), new.to_string()))
        })?;
        let mut out = tree.clone();
        for (path, at) in edits {
            let after = spliced(snapshot::text_of(tree, &path)?, &at, &old, &new)?;
            if !crate::python::parses(&after, &path) {
                return None;
            }
            out = snapshot::with_file(&out, &path, &after);
        }
        Some(out)
    }

    fn message(&self, site: &Site) -> String {
        let (function, old) = site.symbol.rsplit_once('.').unwrap_or(("", &site.symbol));
        format!("`{function}`: rename parameter `{old}` to `{}`", site.target.as_deref().unwrap_or_default())
    }
}

/// The function's renamable parameters with their new names, in signature order.
fn renames(function: &Function) -> Vec<(String, String)> {
    let star = |a: &Option<Box<ast::Arg>>| a.as_ref().map(|a| a.arg.to_string());
    let (vararg, kwarg) = (star(&function.args.vararg), star(&function.args.kwarg));
    parameters(function.args)
        .into_iter()
        .map(|a| a.arg.to_string())
        .filter(|name| !matches!(name.as_str(), "self" | "cls" | "mcs") && Some(name) != vararg.as_ref())
        .filter(|name| Some(name) != kwarg.as_ref() && naming::is_renamable(name))
        .filter_map(|old| naming::synonym(&old).map(|new| (old, new)))
        .collect()
}

/// The name calls of `function` are spelled with (see [`callee`]); `None` for a
/// function's nested `__init__`.
fn callee_name(function: &Function) -> Option<String> {
    let init = function.qual.rsplit('.').next() == Some("__init__");
    if init && !function.method {
        return None;
    }
    callee(&function.qual).map(str::to_string)
}

/// The name a call of the function qualified as `qualified` (`func`, `Class.method`,
/// `Class.__init__`) is spelled with: its own, or its class's for `__init__`; `None`
/// for any other dunder.
pub(crate) fn callee(qualified: &str) -> Option<&str> {
    let mut parts = qualified.rsplit('.');
    match parts.next()? {
        "__init__" => parts.next(),
        name if name.starts_with("__") && name.ends_with("__") => None,
        name => Some(name),
    }
}

/// The offsets renaming parameter `old` to `new` edits in its function's own module
/// text (signature, body, comments, docstring); `None` if it may not be renamed.
pub(super) fn plan(at: &InFunction, old: &str, new: &str) -> Option<BTreeSet<usize>> {
    let (text, function, scope, own) = (&at.module.text, at.function, &at.scope, at.own());
    let param = parameters(function.args).into_iter().find(|a| a.arg.as_str() == old)?;
    let fresh = !naming::is_reserved(new) && !at.globals.contains(new) && !occurs(own, new);
    if scope.blocked.contains(old) || !fresh || reads_own_frame(own) {
        return None;
    }
    if function.enclosing.iter().any(|outer| occurs(&text[outer.clone()], new)) {
        return None;
    }
    let mut edits: BTreeSet<usize> = scope.names.get(old).map(|v| v.iter().copied().collect()).unwrap_or_default();
    edits.insert(PyModule::span(param).start);
    for range in &scope.docstrings {
        edits.extend(documented(text, range.clone(), old));
    }
    at.with_prose(old, edits)
}

/// Where a docstring names parameter `old`: a line of its parameter list opening with
/// `old:`, `old (type):` or `old : type`, or holding `:param old:`, `:param type old:`
/// or `:type old:`; and `*old*`, reStructuredText's emphasis for a parameter in prose.
fn documented(text: &str, range: Range<usize>, old: &str) -> Vec<usize> {
    let emphasis = format!("*{old}*");
    let mut out: Vec<usize> = text[range.clone()]
        .match_indices(&emphasis)
        .map(|(at, _)| range.start + at + 1)
        .filter(|&at| !text[..at - 1].ends_with('*') && !text[at + old.len() + 1..].starts_with('*'))
        .collect();
    let mut start = range.start;
    for line in text[range.clone()].split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        let rest = trimmed.strip_prefix(old).map(str::trim_start);
        if naming::is_word_at(text, start + indent, old) && rest.is_some_and(|r| r.starts_with(':') || r.starts_with('(')) {
            out.push(start + indent);
        }
        for field in [":param ", ":type "] {
            for (at, _) in line.match_indices(field) {
                let Some(colon) = line[at + field.len()..].find(':') else { continue };
                let field_text = &line[at + field.len()..at + field.len() + colon];
                if let Some(word) = field_text.rsplit(' ').next().filter(|w| *w == old) {
                    out.push(start + at + field.len() + colon - word.len());
                }
            }
        }
        start += line.len();
    }
    out
}

/// For every Python file of `tree`, the offsets of keyword arguments `old=` in calls of
/// `callee`; `None` when another function named like the one renamed has a parameter
/// `old` too, or a file that mentions both does not parse.
fn keyword_edits(tree: &Snapshot, callee: &str, old: &str) -> Option<BTreeMap<String, BTreeSet<usize>>> {
    let mut edits: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let mut namesakes = 0;
    for (file, text) in tree.keys().filter(|p| p.ends_with(".py") || p.ends_with(".pyi")).filter_map(|p| Some((p, snapshot::text_of(tree, p)?))) {
        if !occurs(text, callee) || !occurs(text, old) {
            continue;
        }
        let module = PyModule::parse(file, text).ok()?;
        let mut stmts = Vec::new();
        walk_stmts(&module.suite, &mut stmts);
        namesakes += stmts.iter().filter(|s| defines_with_param(s, callee, old)).count();
        let at: BTreeSet<usize> = keyword_offsets(&stmts, callee, old).into_iter().filter(|&at| naming::is_word_at(text, at, old)).collect();
        if !at.is_empty() {
            edits.insert(file.clone(), at);
        }
    }
    // The function itself (or its class, for `__init__`) is one.
    (namesakes == 1).then_some(edits)
}

/// Whether `stmt` defines a function named `name` with a parameter `param`, or a class
/// named `name` whose `__init__` has one.
fn defines_with_param(stmt: &ast::Stmt, name: &str, param: &str) -> bool {
    let has = |args: &ast::Arguments| parameters(args).iter().any(|a| a.arg.as_str() == param);
    match stmt {
        ast::Stmt::FunctionDef(d) => d.name.as_str() == name && has(&d.args),
        ast::Stmt::AsyncFunctionDef(d) => d.name.as_str() == name && has(&d.args),
        ast::Stmt::ClassDef(c) => {
            c.name.as_str() == name
                && c.body.iter().any(|s| matches!(s, ast::Stmt::FunctionDef(d) if d.name.as_str() == "__init__" && has(&d.args)))
        }
        _ => false,
    }
}

/// The offsets of the keyword `old` in calls of `callee` among `stmts`' expressions.
fn keyword_offsets(stmts: &[&ast::Stmt], callee: &str, old: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack: Vec<&ast::Expr> = stmts.iter().flat_map(|s| owned_exprs(s)).collect();
    while let Some(expr) = stack.pop() {
        if let ast::Expr::Call(call) = expr {
            let partial = spelled(&call.func, "partial") && call.args.first().is_some_and(|f| spelled(f, callee));
            if spelled(&call.func, callee) || partial {
                out.extend(call.keywords.iter().filter(|k| k.arg.as_deref() == Some(old)).map(|k| PyModule::span(k).start));
            }
        }
        stack.extend(expr_children(expr));
    }
    out
}

/// Whether `expr` is the name `name` or an attribute `.name`.
fn spelled(expr: &ast::Expr, name: &str) -> bool {
    match expr {
        ast::Expr::Name(n) => n.id.as_str() == name,
        ast::Expr::Attribute(a) => a.attr.as_str() == name,
        _ => false,
    }
}
