//! `rename-local` (refactor): a local variable of one function of a source module gets
//! the name a developer would pick ([`naming::synonym`]), within that function only.
//!
//! A local is a name the function's own scope assigns (assignment, `for`, `with ... as`,
//! `:=`, augmented assignment); every `Name` node of it in that scope is renamed
//! (comprehensions and f-strings included), with its mentions in the function's comments
//! and docstring (in backticks or followed by `(`; a doctest's names are not the
//! function's). Strings, attributes and keyword
//! arguments that spell the same word are other things and stay as written.
//!
//! No site when the name is a parameter, declared `global`/`nonlocal`, bound another way
//! too (`import`, `except ... as`, a match capture, a nested `def`/`class`, a
//! comprehension's target), appears inside a nested function, lambda or class, shadows
//! something (a module-level name, a builtin, an enclosing function's name), when the
//! function reads its own frame (`locals()`, `vars()`, `eval`, `exec`) or prints the name
//! (`f"{name=}"`), or shares its qualified name with another (a property's setter); nor
//! when the new name is reserved, a module-level name, or occurs in the function or an
//! enclosing one.
//!
//! What a rename inside one function needs of its module ([`InFunction`]), the walk over
//! every function that makes such sites ([`function_sites`]) and the lookup of a site's
//! function in another tree ([`at_site`]) live here too: `rename-param` uses them.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rustpython_ast as ast;

use super::naming::{self, occurrences, occurs, Mentions};
use super::kind::Kind;
use super::site::{Change, Rewrites, Site, Transform, Workspace};
use crate::python::walk::{child_blocks, expr_children, is_docstring, owned_exprs, parameters, pattern_names, stmt_exprs};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

pub(crate) struct RenameLocal;

impl Transform for RenameLocal {
    fn change(&self) -> Change {
        Change::Refactor(Rewrites::Local)
    }

    fn description(&self) -> &'static str {
        "renames a local variable of one function"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let renames = |at: &InFunction| at.scope.renames().into_iter().map(|(old, new)| (old.to_string(), new)).collect();
        function_sites(Kind::RenameLocal, workspace.modules, renames, plan)
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        at_site(tree, site, |at, old, new| {
            let after = spliced(&at.module.text, &plan(at, old, new)?, old, new)?;
            crate::python::parses(&after, &site.path).then(|| snapshot::with_file(tree, &site.path, &after))
        })
    }

    fn message(&self, site: &Site) -> String {
        let (function, old) = site.symbol.rsplit_once('.').unwrap_or(("", &site.symbol));
        format!("`{function}`: rename `{old}` to `{}`", site.target.as_deref().unwrap_or_default())
    }
}

/// One function of a parsed module with what a rename inside it reads: the module's
/// comments and module-level names, and the function's own scope.
pub(super) struct InFunction<'a> {
    pub(crate) module: &'a PyModule,
    pub(crate) comments: &'a [Range<usize>],
    pub(crate) globals: &'a BTreeSet<String>,
    pub(crate) function: &'a Function<'a>,
    pub(crate) scope: Scope,
}

impl InFunction<'_> {
    /// The function's own text (its `def` statement).
    pub(super) fn own(&self) -> &str {
        &self.module.text[self.function.span.clone()]
    }

    /// `edits` (where the function's code spells `old`) with `old`'s mentions in the
    /// function's comments and docstrings added (in backticks or followed by `(`);
    /// `None` if `old` occurs in a nested function, lambda or class, an f-string prints
    /// a renamed name (`f"{old=}"`), or an edit is not the word `old`.
    pub(super) fn with_prose(&self, old: &str, mut edits: BTreeSet<usize>) -> Option<BTreeSet<usize>> {
        let (text, span, scope) = (&self.module.text, &self.function.span, &self.scope);
        let found: Vec<usize> = occurrences(self.own(), old).into_iter().map(|at| span.start + at).collect();
        if found.iter().any(|at| scope.nested.iter().any(|r| r.contains(at))) {
            return None;
        }
        let printing = |f: &Range<usize>| edits.iter().any(|at| f.contains(at)) && self_documenting(&text[f.clone()]);
        if scope.fstrings.iter().any(printing) {
            return None;
        }
        let prose = self.comments.iter().filter(|c| span.contains(&c.start)).chain(&scope.docstrings);
        for range in prose {
            edits.extend(naming::mentions(text, range.clone(), old, Mentions::Marked));
        }
        edits.iter().all(|&at| naming::is_word_at(text, at, old)).then_some(edits)
    }
}

/// The sites of `kind` (a rename inside one function) in `modules`: for each function
/// that alone has its qualified name, each `(old, new)` of `renames` that `plan` allows
/// and whose edits keep the module's width. The symbol is `function.old`.
pub(super) fn function_sites(
    kind: Kind,
    modules: &[PyModule],
    renames: impl Fn(&InFunction) -> Vec<(String, String)>,
    plan: impl Fn(&InFunction, &str, &str) -> Option<BTreeSet<usize>>,
) -> Vec<Site> {
    let mut sites = Vec::new();
    for module in modules {
        let Some(comments) = naming::comments(&module.text) else { continue };
        let globals = module_level_names(module);
        let functions = functions(module);
        for function in functions.iter().filter(|f| is_unique(&functions, &f.qual)) {
            let at = InFunction { module, comments: &comments, globals: &globals, function, scope: Scope::of(function) };
            for (old, new) in renames(&at) {
                if plan(&at, &old, &new).and_then(|edits| spliced(&module.text, &edits, &old, &new)).is_none() {
                    continue;
                }
                sites.push(Site {
                    kind,
                    path: module.path.clone(),
                    symbol: format!("{}.{old}", function.qual),
                    lines: module.line_of(function.header_start)..module.line_of(function.span.end) + 1,
                    uses: BTreeSet::from([function.qual.clone()]),
                    target: Some(new),
                    tests: Vec::new(),
                });
            }
        }
    }
    sites.sort_by_key(|s| (s.path.clone(), s.lines.start, s.symbol.clone()));
    sites
}

/// `f` of the function `site` names in `tree` (its symbol less the last part, which is
/// the old name; its target is the new one); `None` if the function is gone or no
/// longer alone with its name.
pub(super) fn at_site<T>(tree: &Snapshot, site: &Site, f: impl FnOnce(&InFunction, &str, &str) -> Option<T>) -> Option<T> {
    let (qual, old) = site.symbol.rsplit_once('.')?;
    let new = site.target.as_deref()?;
    let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
    let comments = naming::comments(&module.text)?;
    let globals = module_level_names(&module);
    let functions = functions(&module);
    let function = functions.iter().find(|f| f.qual == qual).filter(|_| is_unique(&functions, qual))?;
    let at = InFunction { module: &module, comments: &comments, globals: &globals, function, scope: Scope::of(function) };
    f(&at, old, new)
}

/// The module's text renamed at `edits`, if that keeps its width.
pub(super) fn spliced(text: &str, edits: &BTreeSet<usize>, old: &str, new: &str) -> Option<String> {
    naming::renamed(text, edits, old, new).filter(|after| naming::keeps_width(text, after))
}

/// Builtins a function can use to read its own frame by name.
const FRAME_READERS: &[&str] = &["locals", "vars", "eval", "exec"];

/// Whether a function's text calls a builtin that reads its frame by name
/// ([`FRAME_READERS`]): renaming or moving its locals would change what that reads.
pub(super) fn reads_own_frame(own: &str) -> bool {
    FRAME_READERS.iter().any(|r| occurs(own, r))
}

/// A function of a module and where it sits.
pub(super) struct Function<'a> {
    /// Qualified name: `func`, `Class.method`, `outer.inner`.
    pub(crate) qual: String,
    pub(crate) args: &'a ast::Arguments,
    pub(crate) body: &'a [ast::Stmt],
    /// The `def` statement's bytes (from `def`/`async`, decorators excluded).
    pub(crate) span: Range<usize>,
    /// Where its first decorator (or else its `def`) starts.
    pub(crate) header_start: usize,
    /// The spans of the functions it is nested in.
    pub(crate) enclosing: Vec<Range<usize>>,
    /// Whether it is defined directly in a class body (a method).
    pub(crate) method: bool,
}

/// Whether one function only has the qualified name (a property's getter and setter, or
/// a function defined in both branches of an `if`, share theirs).
pub(super) fn is_unique(functions: &[Function], qual: &str) -> bool {
    functions.iter().filter(|f| f.qual == qual).count() == 1
}

/// Every function of a module, methods and nested functions included, in source order.
pub(super) fn functions(module: &PyModule) -> Vec<Function<'_>> {
    let mut out = Vec::new();
    collect_functions(&module.suite, &mut Vec::new(), &mut Vec::new(), false, &mut out);
    out
}

fn collect_functions<'a>(
    block: &'a [ast::Stmt],
    scope: &mut Vec<String>,
    enclosing: &mut Vec<Range<usize>>,
    in_class: bool,
    out: &mut Vec<Function<'a>>,
) {
    for stmt in block {
        let (name, args, body, decorators) = match stmt {
            ast::Stmt::FunctionDef(d) => (&d.name, d.args.as_ref(), &d.body, &d.decorator_list),
            ast::Stmt::AsyncFunctionDef(d) => (&d.name, d.args.as_ref(), &d.body, &d.decorator_list),
            ast::Stmt::ClassDef(c) => {
                scope.push(c.name.to_string());
                collect_functions(&c.body, scope, enclosing, true, out);
                scope.pop();
                continue;
            }
            other => {
                for inner in child_blocks(other) {
                    collect_functions(inner, scope, enclosing, in_class, out);
                }
                continue;
            }
        };
        let span = PyModule::span(stmt);
        scope.push(name.to_string());
        out.push(Function {
            qual: scope.join("."),
            args,
            body,
            span: span.clone(),
            header_start: decorators.first().map_or(span.start, |d| PyModule::span(d).start),
            enclosing: enclosing.clone(),
            method: in_class,
        });
        enclosing.push(span);
        collect_functions(body, scope, enclosing, false, out);
        enclosing.pop();
        scope.pop();
    }
}

/// Identifiers a statement binds without a `Name` node (a nested `def`/`class`,
/// `import`, `global`/`nonlocal`, `except ... as`, match captures).
pub(super) fn identifier_bindings(stmt: &ast::Stmt) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    match stmt {
        ast::Stmt::FunctionDef(d) => names.push(&d.name),
        ast::Stmt::AsyncFunctionDef(d) => names.push(&d.name),
        ast::Stmt::ClassDef(c) => names.push(&c.name),
        ast::Stmt::Import(i) => {
            for alias in &i.names {
                names.push(alias.asname.as_deref().unwrap_or_else(|| alias.name.split('.').next().unwrap_or("")));
            }
        }
        ast::Stmt::ImportFrom(i) => {
            names.extend(i.names.iter().map(|a| a.asname.as_deref().unwrap_or(&a.name)));
        }
        ast::Stmt::Global(g) => names.extend(g.names.iter().map(|n| n.as_str())),
        ast::Stmt::Nonlocal(n) => names.extend(n.names.iter().map(|n| n.as_str())),
        ast::Stmt::Try(t) => handler_names(&t.handlers, &mut names),
        ast::Stmt::TryStar(t) => handler_names(&t.handlers, &mut names),
        ast::Stmt::Match(m) => m.cases.iter().for_each(|c| pattern_names(&c.pattern, &mut names)),
        _ => {}
    }
    names
}

fn handler_names<'a>(handlers: &'a [ast::ExceptHandler], names: &mut Vec<&'a str>) {
    for handler in handlers {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        names.extend(h.name.as_deref());
    }
}

/// Every name the module's own scope binds or reads (its top-level statements and their
/// blocks, the headers of its functions and classes; not their bodies).
fn module_level_names(module: &PyModule) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut stack: Vec<&ast::Stmt> = module.suite.iter().collect();
    while let Some(stmt) = stack.pop() {
        names.extend(identifier_bindings(stmt).into_iter().map(str::to_string));
        for expr in owned_exprs(stmt) {
            if let ast::Expr::Name(n) = expr {
                names.insert(n.id.to_string());
            }
        }
        if !matches!(stmt, ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_)) {
            stack.extend(child_blocks(stmt).into_iter().flatten());
        }
    }
    names
}

/// What a function's own scope does with names.
#[derive(Default)]
pub(super) struct Scope {
    /// Every `Name` node of the scope: name → offsets.
    pub(crate) names: BTreeMap<String, Vec<usize>>,
    /// Names the scope assigns through a `Name` node.
    pub(crate) stores: BTreeSet<String>,
    /// The function's parameters.
    pub(crate) params: BTreeSet<String>,
    /// Names bound otherwise: `global`/`nonlocal`, identifier bindings, comprehension
    /// targets.
    pub(crate) blocked: BTreeSet<String>,
    /// Nested scopes: functions, classes and lambdas.
    pub(crate) nested: Vec<Range<usize>>,
    /// f-strings.
    pub(crate) fstrings: Vec<Range<usize>>,
    /// Docstrings of the scope.
    pub(crate) docstrings: Vec<Range<usize>>,
}

impl Scope {
    pub(super) fn of(function: &Function) -> Self {
        let mut scope = Scope::default();
        scope.params.extend(parameters(function.args).into_iter().map(|a| a.arg.to_string()));
        scope.block(function.body);
        scope
    }

    /// Whether `name` is bound only by assignments of the scope (no parameter, import,
    /// declaration or comprehension target).
    fn is_plain_local(&self, name: &str) -> bool {
        self.stores.contains(name) && !self.params.contains(name) && !self.blocked.contains(name)
    }

    fn block(&mut self, block: &[ast::Stmt]) {
        for stmt in block {
            self.blocked.extend(identifier_bindings(stmt).into_iter().map(str::to_string));
            if is_docstring(stmt) {
                self.docstrings.push(PyModule::span(stmt));
            }
            for expr in stmt_exprs(stmt) {
                self.expr(expr);
            }
            match stmt {
                ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_) => {
                    self.nested.push(PyModule::span(stmt));
                }
                other => child_blocks(other).into_iter().for_each(|b| self.block(b)),
            }
        }
    }

    fn expr(&mut self, expr: &ast::Expr) {
        let generators = match expr {
            ast::Expr::Name(n) => {
                self.names.entry(n.id.to_string()).or_default().push(PyModule::span(n).start);
                if matches!(n.ctx, ast::ExprContext::Store | ast::ExprContext::Del) {
                    self.stores.insert(n.id.to_string());
                }
                return;
            }
            ast::Expr::Lambda(_) => {
                self.nested.push(PyModule::span(expr));
                return;
            }
            ast::Expr::JoinedStr(_) => {
                self.fstrings.push(PyModule::span(expr));
                &[][..]
            }
            ast::Expr::ListComp(c) => &c.generators[..],
            ast::Expr::SetComp(c) => &c.generators[..],
            ast::Expr::DictComp(c) => &c.generators[..],
            ast::Expr::GeneratorExp(c) => &c.generators[..],
            _ => &[][..],
        };
        for generator in generators {
            let mut targets = vec![&generator.target];
            while let Some(target) = targets.pop() {
                match target {
                    ast::Expr::Name(n) => {
                        self.blocked.insert(n.id.to_string());
                    }
                    other => targets.extend(expr_children(other)),
                }
            }
        }
        for child in expr_children(expr) {
            self.expr(child);
        }
    }

    /// The scope's locals that have a synonym, with it, in order of first occurrence.
    fn renames(&self) -> Vec<(&str, String)> {
        let mut out: Vec<(usize, &str, String)> = self
            .stores
            .iter()
            .filter(|name| self.is_plain_local(name) && naming::is_renamable(name))
            .filter_map(|name| {
                let first = *self.names.get(name)?.iter().min()?;
                Some((first, name.as_str(), naming::synonym(name)?))
            })
            .collect();
        out.sort();
        out.into_iter().map(|(_, old, new)| (old, new)).collect()
    }
}

/// The offsets renaming local `old` to `new` edits in its function; `None` if it may not.
fn plan(at: &InFunction, old: &str, new: &str) -> Option<BTreeSet<usize>> {
    let (text, function, scope, own) = (&at.module.text, at.function, &at.scope, at.own());
    let local = scope.is_plain_local(old) && naming::is_renamable(old);
    let fresh = !naming::is_reserved(new) && !at.globals.contains(new) && !occurs(own, new);
    if !local || !fresh || at.globals.contains(old) || reads_own_frame(own) {
        return None;
    }
    for outer in &function.enclosing {
        let outside = |at: &usize| !function.span.contains(at);
        if occurrences(&text[outer.clone()], old).iter().map(|at| outer.start + at).any(|at| outside(&at))
            || occurs(&text[outer.clone()], new)
        {
            return None;
        }
    }
    at.with_prose(old, scope.names.get(old)?.iter().copied().collect())
}

/// Whether an f-string has a self-documenting field (`{name=}`, `{name = !r}`), whose
/// output spells the expression: an `=` that is not part of a comparison, followed by
/// `}`, `!` or `:`.
fn self_documenting(source: &str) -> bool {
    let bytes = source.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        let after = source[i + 1..].trim_start();
        b == b'='
            && !(i > 0 && matches!(bytes[i - 1], b'=' | b'!' | b'<' | b'>'))
            && !after.starts_with('=')
            && after.starts_with(['}', '!', ':'])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_documenting_fields_are_told_from_text_and_comparisons() {
        assert!(self_documenting("f'{value=}'"));
        assert!(self_documenting("f'{value = !r}'"));
        assert!(self_documenting("f'{value=:>10}'"));
        assert!(!self_documenting("f'value={value:.2f}'"));
        assert!(!self_documenting("f'{value == 1}'"));
        assert!(!self_documenting("f'{value >= 1}'"));
    }
}
