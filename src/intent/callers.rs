//! What contract kinds share: the functions a contract may change (module-level
//! functions and methods of module-level classes), the site naming one, every call of it
//! in a tree (sources and tests) told apart from other code, and text edits applied to
//! many files at once.
//!
//! Calls are found by name: `f(...)` and `x.f(...)` for a module-level function,
//! `x.f(...)` for a method. Nothing is found ([`calls_of`] gives `None`) when the calls
//! could not be told apart from another thing's: a second definition of the name
//! anywhere in the tree (a function, a method, a class, an assignment, a parameter, an
//! attribute assigned), a name common to the standard library's types (`get`, `split`),
//! a use of the function as a value (passed on, aliased, decorated with `@property`) or
//! a string naming it (`mock.patch("pkg.mod.f")`; `__all__` entries excepted), a
//! docstring's example calling it (a doctest shows the old result), or a file mentioning
//! it that does not parse.
//!
//! A change that keeps what a call returns (a signature's) asks for the examples too
//! ([`Doctests::Rewrite`]): each `>>>` example mentioning the function (with its `...`
//! lines) is parsed on its own at its place in the file, and its calls are callers like
//! any other, rewritten in the docstring as a developer would. Nothing is found when
//! such an example does not parse, holds a backslash (the docstring's text would not
//! be the example's) or starts on the line of the opening quotes.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rustpython_ast as ast;

use super::kind::Kind;
use super::refs::{self, mentions};
use super::site::Site;
use crate::python::walk::{owned_exprs, parameters};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// Method names of the standard library's common types and objects: a call `x.name(...)`
/// could be one of theirs.
const COMMON_METHODS: &[&str] = &[
    "get",
    "pop",
    "keys",
    "values",
    "items",
    "update",
    "copy",
    "clear",
    "setdefault",
    "append",
    "extend",
    "insert",
    "remove",
    "index",
    "count",
    "sort",
    "reverse",
    "add",
    "discard",
    "split",
    "rsplit",
    "join",
    "strip",
    "lstrip",
    "rstrip",
    "replace",
    "find",
    "rfind",
    "format",
    "encode",
    "decode",
    "read",
    "write",
    "readline",
    "close",
    "open",
    "match",
    "search",
    "sub",
    "group",
    "groups",
    "start",
    "end",
    "span",
    "send",
    "run",
    "parse",
    "load",
    "loads",
    "dump",
    "dumps",
    "partition",
    "rpartition",
    "divmod",
    "next",
    "iter",
    "lower",
    "upper",
    "startswith",
    "endswith",
];

/// A function a contract may change: a module-level function or a method of a
/// module-level class (not async, not a dunder).
pub(super) struct Function<'m> {
    pub(super) def: &'m ast::StmtFunctionDef,
    /// The class holding it, for a method.
    pub(super) class: Option<&'m ast::StmtClassDef>,
}

impl<'m> Function<'m> {
    /// `name` or `Class.name`.
    pub(super) fn symbol(&self) -> String {
        match self.class {
            Some(class) => format!("{}.{}", class.name, self.def.name),
            None => self.def.name.to_string(),
        }
    }

    /// The function's own statements (nested functions and classes excluded), depth-first.
    pub(super) fn own_statements(&self) -> Vec<&'m ast::Stmt> {
        let mut out = Vec::new();
        own_statements(&self.def.body, &mut out);
        out
    }

    /// The site of `kind` for this function in `module`, with `target`.
    pub(super) fn site(&self, kind: Kind, module: &PyModule, target: Option<String>) -> Site {
        let start = self.def.decorator_list.first().map_or(PyModule::span(self.def).start, |d| PyModule::span(d).start);
        let name = self.def.name.to_string();
        Site {
            kind,
            path: module.path.clone(),
            symbol: self.symbol(),
            lines: module.line_of(start)..module.line_of(PyModule::span(self.def).end) + 1,
            // Features calling it pair with it: a function by its name, a method by `.name`.
            uses: BTreeSet::from([if self.class.is_some() { format!(".{name}") } else { name }]),
            target,
            tests: Vec::new(),
        }
    }
}

fn own_statements<'a>(block: &'a [ast::Stmt], out: &mut Vec<&'a ast::Stmt>) {
    for stmt in block {
        out.push(stmt);
        if !matches!(stmt, ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_)) {
            for inner in crate::python::walk::child_blocks(stmt) {
                own_statements(inner, out);
            }
        }
    }
}

/// The functions of `module` a contract may change, in source order.
pub(super) fn functions(module: &PyModule) -> Vec<Function<'_>> {
    let mut out = Vec::new();
    for stmt in &module.suite {
        match stmt {
            ast::Stmt::FunctionDef(def) => out.push(Function { def, class: None }),
            ast::Stmt::ClassDef(class) => {
                for inner in &class.body {
                    if let ast::Stmt::FunctionDef(def) = inner {
                        out.push(Function { def, class: Some(class) });
                    }
                }
            }
            _ => {}
        }
    }
    out.retain(|f| !(f.def.name.starts_with("__") && f.def.name.ends_with("__")));
    out
}

/// The function `symbol` names in `module`, if it is there once.
pub(super) fn function<'m>(module: &'m PyModule, symbol: &str) -> Option<Function<'m>> {
    let mut found = functions(module).into_iter().filter(|f| f.symbol() == symbol);
    let function = found.next()?;
    found.next().is_none().then_some(function)
}

/// One Python file of a tree that calls the function, parsed, with the spans of the
/// calls (whole call expressions).
pub(super) struct Caller {
    /// The file, or for a docstring's example the example parsed alone (its offsets and
    /// text the file's).
    pub(super) module: PyModule,
    pub(super) calls: BTreeSet<(usize, usize)>,
    /// Whether the calls are a docstring's example.
    pub(super) doctest: bool,
}

/// What a docstring's example calling the function does to [`calls_of_with`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Doctests {
    /// The calls are unknown: the example's output would show the old result.
    Refuse,
    /// The example's calls are callers (the change keeps what a call returns).
    Rewrite,
}

impl Caller {
    /// Whether `expr` is one of the calls.
    pub(super) fn is_call(&self, expr: &ast::Expr) -> bool {
        let span = PyModule::span(expr);
        matches!(expr, ast::Expr::Call(_)) && self.calls.contains(&(span.start, span.end))
    }
}

/// Every file of `tree` calling the function named `name` (a method when `method`), with
/// its calls; `None` when they cannot be told apart from another thing's (see the module
/// header). The function's own definition is the one definition of the name allowed.
pub(super) fn calls_of(tree: &Snapshot, name: &str, method: bool) -> Option<Vec<Caller>> {
    calls_of_with(tree, name, method, Doctests::Refuse)
}

/// [`calls_of`], with docstrings' examples treated as `doctests` says.
pub(super) fn calls_of_with(tree: &Snapshot, name: &str, method: bool, doctests: Doctests) -> Option<Vec<Caller>> {
    if COMMON_METHODS.contains(&name) {
        return None;
    }
    let mut out = Vec::new();
    let mut definitions = 0;
    for path in tree.keys().filter(|p| p.ends_with(".py") || p.ends_with(".pyi")) {
        let Some(text) = snapshot::text_of(tree, path) else { continue };
        if !mentions(text, name) {
            continue;
        }
        let module = PyModule::parse(path, text).ok()?;
        let (defined, calls, docstrings) = scan(&module, name, method, doctests)?;
        definitions += defined;
        let mut examples = Vec::new();
        for docstring in docstrings {
            examples.extend(examples_of(&module, docstring, name)?);
        }
        if !calls.is_empty() {
            out.push(Caller { module, calls, doctest: false });
        }
        for example in examples {
            let (defined, calls, _) = scan(&example, name, method, Doctests::Refuse)?;
            definitions += defined;
            if !calls.is_empty() {
                out.push(Caller { module: example, calls, doctest: true });
            }
        }
    }
    (definitions == 1).then_some(out)
}

/// The calls [`scan`] finds in a module: how many definitions of the name, the calls'
/// spans, the spans of the strings whose examples mention it (with [`Doctests::Rewrite`]).
type Scan = (usize, BTreeSet<(usize, usize)>, Vec<Range<usize>>);

/// The definitions of `name` in a module and the spans of its calls; `None` on a use
/// that is not a call, or a second binding of the name.
fn scan(module: &PyModule, name: &str, method: bool, doctests: Doctests) -> Option<Scan> {
    let mut defined = 0;
    let mut exprs: Vec<&ast::Expr> = Vec::new();
    for stmt in refs::statements(&module.suite) {
        match stmt {
            ast::Stmt::FunctionDef(d) if d.name.as_str() == name => defined += 1,
            ast::Stmt::AsyncFunctionDef(d) if d.name.as_str() == name => defined += 1,
            ast::Stmt::ClassDef(c) if c.name.as_str() == name => defined += 1,
            _ => {}
        }
        let args = match stmt {
            ast::Stmt::FunctionDef(d) => Some(&d.args),
            ast::Stmt::AsyncFunctionDef(d) => Some(&d.args),
            _ => None,
        };
        if args.is_some_and(|a| parameters(a).iter().any(|p| p.arg.as_str() == name)) {
            return None;
        }
        if is_all(stmt) {
            continue;
        }
        exprs.extend(owned_exprs(stmt));
    }
    let callees: BTreeSet<(usize, usize)> = exprs
        .iter()
        .filter_map(|e| match e {
            ast::Expr::Call(c) => Some(PyModule::span(c.func.as_ref())),
            _ => None,
        })
        .map(|r| (r.start, r.end))
        .collect();
    let mut calls = BTreeSet::new();
    let mut docstrings = Vec::new();
    for expr in &exprs {
        let span = PyModule::span(*expr);
        let is_callee = callees.contains(&(span.start, span.end));
        match expr {
            ast::Expr::Name(n)
                if n.id.as_str() == name && (method || !is_callee || n.ctx != ast::ExprContext::Load) =>
            {
                return None;
            }
            ast::Expr::Attribute(a) if a.attr.as_str() == name && (!is_callee || a.ctx != ast::ExprContext::Load) => {
                return None;
            }
            ast::Expr::Lambda(l) if parameters(&l.args).iter().any(|p| p.arg.as_str() == name) => return None,
            ast::Expr::Constant(c) => {
                if let ast::Constant::Str(s) = &c.value {
                    let doctest = s.contains(">>>") && mentions(s, name);
                    if s == name || s.ends_with(&format!(".{name}")) || (doctest && doctests == Doctests::Refuse) {
                        return None;
                    }
                    if doctest {
                        docstrings.push(span);
                    }
                }
            }
            ast::Expr::Call(c) if spelled(&c.func, name) => {
                calls.insert((span.start, span.end));
            }
            _ => {}
        }
    }
    Some((defined, calls, docstrings))
}

/// The `>>>` examples (with their `...` lines) of the string literal at `span` that
/// mention `name`, each parsed alone at its place in the file; `None` when one cannot
/// be (see the module header).
fn examples_of(module: &PyModule, span: Range<usize>, name: &str) -> Option<Vec<PyModule>> {
    let text = &module.text;
    let body = string_body(text, span)?;
    let mut lines: Vec<Range<usize>> = Vec::new();
    let mut start = body.start;
    for line in text[body.clone()].split('\n') {
        lines.push(start..start + line.len());
        start += line.len() + 1;
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(indent) = prompt(&text[lines[i].clone()], ">>>", None) else {
            i += 1;
            continue;
        };
        let mut j = i + 1;
        while j < lines.len() && prompt(&text[lines[j].clone()], "...", Some(indent)).is_some() {
            j += 1;
        }
        let whole = lines[i].start..lines[j - 1].end;
        if mentions(&text[whole.clone()], name) {
            let at_line_start = text[..whole.start].ends_with('\n');
            if !at_line_start || text[whole.clone()].contains('\\') {
                return None;
            }
            // Each prompt blanked, the example indented under `if 1:` placed just before
            // it, so that its offsets are the file's.
            let blanked: Vec<String> = lines[i..j]
                .iter()
                .map(|line| {
                    let line = &text[line.clone()];
                    let cut = (indent + 4).min(line.len());
                    format!("{}{}", " ".repeat(cut), &line[cut..])
                })
                .collect();
            let piece = format!("if 1:\n{}", blanked.join("\n"));
            let offset = whole.start.checked_sub("if 1:\n".len())?;
            out.push(PyModule::parse_piece(&module.path, text, &piece, offset).ok()?);
        }
        i = j;
    }
    Some(out)
}

/// The indent of `line` when it opens with the doctest prompt `mark` (`>>>` or `...`,
/// followed by a space or nothing), at `indent` when given.
fn prompt(line: &str, mark: &str, indent: Option<usize>) -> Option<usize> {
    let trimmed = line.trim_start_matches(' ');
    let at = line.len() - trimmed.len();
    let rest = trimmed.strip_prefix(mark)?;
    let fits = indent.is_none_or(|i| i == at) && (rest.is_empty() || rest.starts_with(' '));
    fits.then_some(at)
}

/// The text between a string literal's quotes (the prefix and quotes left out); `None`
/// for literals joined from pieces.
fn string_body(text: &str, span: Range<usize>) -> Option<Range<usize>> {
    let spelling = text.get(span.clone())?;
    let prefix = spelling.len() - spelling.trim_start_matches(|c: char| c.is_ascii_alphabetic()).len();
    let quote = ["\"\"\"", "'''", "\"", "'"].into_iter().find(|q| spelling[prefix..].starts_with(q))?;
    let body = span.start + prefix + quote.len()..span.end.checked_sub(quote.len())?;
    let whole = body.start <= body.end && !text[body.clone()].contains(quote) && spelling.ends_with(quote);
    whole.then_some(body)
}

/// Whether a statement assigns `__all__`.
fn is_all(stmt: &ast::Stmt) -> bool {
    let target = match stmt {
        ast::Stmt::Assign(a) => a.targets.first(),
        ast::Stmt::AugAssign(a) => Some(a.target.as_ref()),
        ast::Stmt::AnnAssign(a) => Some(a.target.as_ref()),
        _ => None,
    };
    matches!(target, Some(ast::Expr::Name(n)) if n.id.as_str() == "__all__")
}

/// Whether `expr` is the name `name` or an attribute `.name`.
pub(super) fn spelled(expr: &ast::Expr, name: &str) -> bool {
    match expr {
        ast::Expr::Name(n) => n.id.as_str() == name,
        ast::Expr::Attribute(a) => a.attr.as_str() == name,
        _ => false,
    }
}

/// The span of the innermost function of `module` holding `offset` (the whole module
/// when none does).
pub(super) fn scope_at(module: &PyModule, offset: usize) -> Range<usize> {
    refs::statements(&module.suite)
        .into_iter()
        .filter(|s| matches!(s, ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_)))
        .map(PyModule::span)
        .filter(|span| span.contains(&offset))
        .min_by_key(|span| span.len())
        .unwrap_or(0..module.text.len())
}

/// The quote a file's strings mostly open with (`"` unless `'` is more common).
pub(super) fn quote_of(text: &str) -> char {
    if text.matches('\'').count() > text.matches('"').count() {
        '\''
    } else {
        '"'
    }
}

/// A replacement of a byte range of one file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Edit {
    pub(super) at: Range<usize>,
    pub(super) text: String,
}

impl Edit {
    pub(super) fn new(at: Range<usize>, text: impl Into<String>) -> Self {
        Edit { at, text: text.into() }
    }
}

/// `text` with `edits` made; `None` when two overlap.
pub(super) fn spliced(text: &str, edits: &[Edit]) -> Option<String> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.at.start, e.at.end));
    sorted.dedup();
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for edit in sorted {
        if edit.at.start < done {
            return None;
        }
        out.push_str(text.get(done..edit.at.start)?);
        out.push_str(&edit.text);
        done = edit.at.end;
    }
    out.push_str(text.get(done..)?);
    Some(out)
}

/// `tree` with each file's edits made; `None` when an edited file would not parse.
pub(super) fn rewritten(tree: &Snapshot, edits: BTreeMap<String, Vec<Edit>>) -> Option<Snapshot> {
    let mut out = tree.clone();
    for (path, edits) in edits.into_iter().filter(|(_, e)| !e.is_empty()) {
        let after = spliced(snapshot::text_of(tree, &path)?, &edits)?;
        if !crate::python::parses(&after, &path) {
            return None;
        }
        out = snapshot::with_file(&out, &path, &after);
    }
    Some(out)
}

/// `tree` (`before` with edits made) with what the edits left unused in the file at
/// `path` taken out (`prune`: an import of `Tuple` no annotation needs any more).
pub(super) fn pruned(before: &Snapshot, tree: Snapshot, path: &str) -> Option<Snapshot> {
    let (old, new) = (snapshot::text_of(before, path)?, snapshot::text_of(&tree, path)?);
    let elsewhere = |name: &str| {
        before
            .keys()
            .filter(|p| p.as_str() != path && p.ends_with(".py"))
            .any(|p| snapshot::text_of(before, p).is_some_and(|t| mentions(t, name)))
    };
    let text = super::prune::prune(path, old, new.to_string(), snapshot::is_test_file(path), &elsewhere)?;
    Some(snapshot::with_file(&tree, path, &text))
}

/// A name for a value held at `offset` of `module`: the first of `candidates` that is
/// mentioned nowhere in the innermost function there (the module, at module level) nor
/// at module level.
pub(super) fn fresh_name<'a>(module: &PyModule, offset: usize, candidates: &[&'a str]) -> Option<&'a str> {
    let scope = scope_at(module, offset);
    candidates.iter().copied().find(|name| {
        !mentions(&module.text[scope.clone()], name) && !module.suite.iter().any(|s| binds_at_top(s, name))
    })
}

/// Whether a module-level statement binds `name`.
fn binds_at_top(stmt: &ast::Stmt, name: &str) -> bool {
    super::units::defined_names(stmt).contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> Snapshot {
        files.iter().map(|(path, text)| (path.to_string(), std::sync::Arc::from(text.as_bytes()))).collect()
    }

    const LIB: &str = "def pad(text, width=4):\n    \"\"\"Pad.\n\n    >>> pad('a')\n    'a   '\n    >>> for w in (1, 2):\n    ...     print(pad('a',\n    ...               w))\n    a\n    a\n    \"\"\"\n    return text.ljust(width)\n";

    #[test]
    fn doctest_calls_are_callers_at_their_place_in_the_file() {
        let tree = tree(&[("lib.py", LIB)]);
        assert!(calls_of(&tree, "pad", false).is_none(), "a doctest makes calls unknown by default");
        let callers = calls_of_with(&tree, "pad", false, Doctests::Rewrite).unwrap();
        let calls: Vec<&str> =
            callers.iter().flat_map(|c| c.calls.iter().map(|&(start, end)| &LIB[start..end])).collect();
        assert_eq!(calls, ["pad('a')", "pad('a',\n    ...               w)"]);
        assert!(callers.iter().all(|c| c.doctest));
    }

    #[test]
    fn doctests_that_cannot_be_placed_make_calls_unknown() {
        let escaped = LIB.replace(">>> pad('a')", ">>> pad('a\\\\n')");
        let broken = LIB.replace(">>> pad('a')", ">>> pad('a'");
        for text in [escaped, broken] {
            assert!(calls_of_with(&tree(&[("lib.py", &text)]), "pad", false, Doctests::Rewrite).is_none(), "{text}");
        }
    }
}
