//! Which module-level names a piece of Python reads, by Python's scoping rules: a name
//! read inside a function resolves to the nearest enclosing function that binds it
//! (class bodies are skipped by the functions inside them), else to the module. Used to
//! find what a moved unit needs from its module, whether its old module still uses it,
//! and which names a file binds.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::ops::Range;

use rustpython_ast as ast;

use crate::python::walk::{arguments_exprs, child_blocks, expr_children, parameters, pattern_names, stmt_exprs};
use crate::python::PyModule;

/// What a run of module-level statements reads and binds.
#[derive(Default)]
pub struct Reads {
    /// Global name → the byte ranges of the `Name` nodes reading it.
    pub(crate) globals: BTreeMap<String, Vec<Range<usize>>>,
    /// Globals read at import time (outside every function and lambda body).
    pub(crate) eager: BTreeSet<String>,
    /// `name.attr` reads of a global `name`: (name, attr, the attribute expression's range).
    pub(crate) attributes: Vec<(String, String, Range<usize>)>,
    /// Every name bound inside a function, class or lambda of the code (parameters included).
    pub(crate) bound: BTreeSet<String>,
    /// Names some function declares `global`.
    pub(crate) declared_global: BTreeSet<String>,
}

/// What `stmts`, read at module scope, read and bind.
pub(crate) fn reads<'a>(stmts: impl IntoIterator<Item = &'a ast::Stmt>) -> Reads {
    let mut walker = Walker { scopes: Vec::new(), functions: 0, out: Reads::default() };
    for stmt in stmts {
        walker.stmt(stmt);
    }
    walker.out
}

struct Scope {
    class: bool,
    locals: HashSet<String>,
}

struct Walker {
    scopes: Vec<Scope>,
    functions: usize,
    out: Reads,
}

impl Walker {
    fn stmt(&mut self, stmt: &ast::Stmt) {
        match stmt {
            ast::Stmt::FunctionDef(d) => {
                self.exprs(stmt_exprs(stmt));
                self.function(&d.args, &d.body);
            }
            ast::Stmt::AsyncFunctionDef(d) => {
                self.exprs(stmt_exprs(stmt));
                self.function(&d.args, &d.body);
            }
            ast::Stmt::ClassDef(c) => {
                self.exprs(stmt_exprs(stmt));
                let locals = bound_in(&c.body);
                self.out.bound.extend(locals.iter().cloned());
                self.scopes.push(Scope { class: true, locals });
                c.body.iter().for_each(|s| self.stmt(s));
                self.scopes.pop();
            }
            ast::Stmt::Global(g) => self.out.declared_global.extend(g.names.iter().map(|n| n.to_string())),
            other => {
                self.exprs(stmt_exprs(other));
                for block in child_blocks(other) {
                    block.iter().for_each(|s| self.stmt(s));
                }
            }
        }
    }

    fn exprs(&mut self, exprs: Vec<&ast::Expr>) {
        exprs.into_iter().for_each(|e| self.expr(e));
    }

    fn function(&mut self, args: &ast::Arguments, body: &[ast::Stmt]) {
        let mut locals = bound_in(body);
        locals.extend(parameters(args).iter().map(|a| a.arg.to_string()));
        for name in declared_in(body) {
            locals.remove(&name);
        }
        self.out.bound.extend(locals.iter().cloned());
        self.scopes.push(Scope { class: false, locals });
        self.functions += 1;
        body.iter().for_each(|s| self.stmt(s));
        self.functions -= 1;
        self.scopes.pop();
    }

    fn expr(&mut self, expr: &ast::Expr) {
        match expr {
            ast::Expr::Name(n) => {
                if n.ctx == ast::ExprContext::Load && self.is_global(n.id.as_str()) {
                    self.out.globals.entry(n.id.to_string()).or_default().push(PyModule::span(expr));
                    if self.functions == 0 {
                        self.out.eager.insert(n.id.to_string());
                    }
                }
            }
            ast::Expr::Attribute(a) => {
                if let ast::Expr::Name(n) = a.value.as_ref() {
                    if n.ctx == ast::ExprContext::Load && self.is_global(n.id.as_str()) {
                        self.out.attributes.push((n.id.to_string(), a.attr.to_string(), PyModule::span(expr)));
                    }
                }
                self.expr(&a.value);
            }
            ast::Expr::Lambda(l) => {
                let mut defaults = Vec::new();
                arguments_exprs(&l.args, &mut defaults);
                self.exprs(defaults);
                let locals: HashSet<String> = parameters(&l.args).iter().map(|a| a.arg.to_string()).collect();
                self.out.bound.extend(locals.iter().cloned());
                self.scopes.push(Scope { class: false, locals });
                self.functions += 1;
                self.expr(&l.body);
                self.functions -= 1;
                self.scopes.pop();
            }
            ast::Expr::ListComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            ast::Expr::SetComp(c) => self.comprehension(&c.generators, &[&c.elt]),
            ast::Expr::GeneratorExp(c) => self.comprehension(&c.generators, &[&c.elt]),
            ast::Expr::DictComp(c) => self.comprehension(&c.generators, &[&c.key, &c.value]),
            other => self.exprs(expr_children(other)),
        }
    }

    /// The first iterable is read in the enclosing scope, the rest in the comprehension's.
    fn comprehension(&mut self, generators: &[ast::Comprehension], results: &[&ast::Expr]) {
        if let Some(first) = generators.first() {
            self.expr(&first.iter);
        }
        let mut locals = HashSet::new();
        for generator in generators {
            target_names(&generator.target, &mut locals);
        }
        self.out.bound.extend(locals.iter().cloned());
        self.scopes.push(Scope { class: false, locals });
        for (i, generator) in generators.iter().enumerate() {
            self.expr(&generator.target);
            if i > 0 {
                self.expr(&generator.iter);
            }
            generator.ifs.iter().for_each(|e| self.expr(e));
        }
        results.iter().for_each(|e| self.expr(e));
        self.scopes.pop();
    }

    fn is_global(&self, name: &str) -> bool {
        let innermost = self.scopes.len().saturating_sub(1);
        !self
            .scopes
            .iter()
            .enumerate()
            .any(|(depth, scope)| (!scope.class || depth == innermost) && scope.locals.contains(name))
    }
}

/// The module-level names the doctest examples of `stmts`' docstrings read (an example
/// reads the globals of its module; names an earlier example of the same docstring binds
/// are its own). Examples that do not parse are skipped.
pub(crate) fn doctest_reads<'a>(stmts: impl IntoIterator<Item = &'a ast::Stmt>) -> BTreeSet<String> {
    let mut statements = Vec::new();
    for stmt in stmts {
        crate::python::walk::walk_stmts(std::slice::from_ref(stmt), &mut statements);
    }
    let mut out = BTreeSet::new();
    for stmt in statements {
        let ast::Stmt::Expr(e) = stmt else { continue };
        let ast::Expr::Constant(c) = e.value.as_ref() else { continue };
        let ast::Constant::Str(doc) = &c.value else { continue };
        let mut bound = HashSet::new();
        for example in examples(doc) {
            let Ok(suite) = <ast::Suite as rustpython_parser::Parse>::parse(&example, "<doctest>") else { continue };
            out.extend(reads(&suite).globals.into_keys().filter(|n| !bound.contains(n)));
            bound.extend(bound_in(&suite));
        }
    }
    out
}

/// The source of each doctest example in a docstring (`>>> ` lines with their `... `
/// continuations).
fn examples(doc: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in doc.lines() {
        let line = line.trim_start();
        if let Some(source) = line.strip_prefix(">>>") {
            out.push(format!("{}\n", source.strip_prefix(' ').unwrap_or(source)));
        } else if let (Some(source), Some(last)) = (line.strip_prefix("..."), out.last_mut()) {
            last.push_str(source.strip_prefix(' ').unwrap_or(source));
            last.push('\n');
        }
    }
    out
}

/// The names a block binds in its own scope: assignments, loop and `with` targets,
/// imports, `def`/`class` names, exception and match captures, walrus targets (not
/// inside nested functions or classes, whose names alone count).
pub(crate) fn bound_in(block: &[ast::Stmt]) -> HashSet<String> {
    let mut out = HashSet::new();
    for stmt in block {
        bind_stmt(stmt, &mut out);
    }
    out
}

fn bind_stmt(stmt: &ast::Stmt, out: &mut HashSet<String>) {
    match stmt {
        ast::Stmt::FunctionDef(d) => {
            out.insert(d.name.to_string());
        }
        ast::Stmt::AsyncFunctionDef(d) => {
            out.insert(d.name.to_string());
        }
        ast::Stmt::ClassDef(c) => {
            out.insert(c.name.to_string());
        }
        ast::Stmt::Import(i) => out.extend(i.names.iter().map(import_binding)),
        ast::Stmt::ImportFrom(i) => {
            out.extend(i.names.iter().filter(|a| a.name.as_str() != "*").map(from_binding));
        }
        ast::Stmt::Try(t) => {
            for handler in &t.handlers {
                let ast::ExceptHandler::ExceptHandler(h) = handler;
                out.extend(h.name.as_ref().map(|n| n.to_string()));
            }
        }
        ast::Stmt::TryStar(t) => {
            for handler in &t.handlers {
                let ast::ExceptHandler::ExceptHandler(h) = handler;
                out.extend(h.name.as_ref().map(|n| n.to_string()));
            }
        }
        ast::Stmt::Match(m) => {
            let mut names = Vec::new();
            m.cases.iter().for_each(|c| pattern_names(&c.pattern, &mut names));
            out.extend(names.into_iter().map(str::to_string));
        }
        _ => {}
    }
    if !matches!(stmt, ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_)) {
        for expr in stmt_exprs(stmt) {
            store_names(expr, out);
        }
        for block in child_blocks(stmt) {
            block.iter().for_each(|s| bind_stmt(s, out));
        }
    }
}

/// The name `import a.b.c [as x]` binds: `x`, else `a`.
pub(crate) fn import_binding(alias: &ast::Alias) -> String {
    match &alias.asname {
        Some(asname) => asname.to_string(),
        None => alias.name.split('.').next().unwrap_or_default().to_string(),
    }
}

/// The name `from m import a [as x]` binds: `x`, else `a`.
pub(crate) fn from_binding(alias: &ast::Alias) -> String {
    alias.asname.as_ref().unwrap_or(&alias.name).to_string()
}

/// Names stored by an expression and its sub-expressions (assignment targets, walrus
/// targets), not looking into lambdas or comprehensions.
fn store_names(expr: &ast::Expr, out: &mut HashSet<String>) {
    match expr {
        ast::Expr::Name(n) if n.ctx != ast::ExprContext::Load => {
            out.insert(n.id.to_string());
        }
        ast::Expr::NamedExpr(n) => {
            target_names(&n.target, out);
            store_names(&n.value, out);
        }
        ast::Expr::Lambda(_)
        | ast::Expr::ListComp(_)
        | ast::Expr::SetComp(_)
        | ast::Expr::GeneratorExp(_)
        | ast::Expr::DictComp(_) => {}
        other => expr_children(other).into_iter().for_each(|e| store_names(e, out)),
    }
}

/// The plain names an assignment target binds.
fn target_names(target: &ast::Expr, out: &mut HashSet<String>) {
    match target {
        ast::Expr::Name(n) => {
            out.insert(n.id.to_string());
        }
        ast::Expr::Tuple(t) => t.elts.iter().for_each(|e| target_names(e, out)),
        ast::Expr::List(l) => l.elts.iter().for_each(|e| target_names(e, out)),
        ast::Expr::Starred(s) => target_names(&s.value, out),
        _ => {}
    }
}

/// Names declared `global` or `nonlocal` directly in a function body.
fn declared_in(body: &[ast::Stmt]) -> Vec<String> {
    let mut out = Vec::new();
    for stmt in body {
        match stmt {
            ast::Stmt::Global(g) => out.extend(g.names.iter().map(|n| n.to_string())),
            ast::Stmt::Nonlocal(n) => out.extend(n.names.iter().map(|n| n.to_string())),
            ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_) => {}
            other => child_blocks(other).into_iter().for_each(|b| out.extend(declared_in(b))),
        }
    }
    out
}

/// Every name a module binds anywhere (any scope) other than by an import: `def`/`class`
/// names, parameters, assignment, loop, `with`, exception, match and comprehension
/// targets.
pub(crate) fn non_import_bindings(suite: &[ast::Stmt]) -> HashSet<String> {
    let mut statements = Vec::new();
    crate::python::walk::walk_stmts(suite, &mut statements);
    let mut out = HashSet::new();
    for stmt in statements {
        if matches!(stmt, ast::Stmt::Import(_) | ast::Stmt::ImportFrom(_)) {
            continue;
        }
        // bind_stmt walks nested blocks too, imports included: keep a compound
        // statement's own names (its nested statements come in this loop).
        match own_bindings(stmt) {
            Some(own) => out.extend(own),
            None => bind_stmt(stmt, &mut out),
        }
        match stmt {
            ast::Stmt::FunctionDef(d) => out.extend(parameters(&d.args).iter().map(|a| a.arg.to_string())),
            ast::Stmt::AsyncFunctionDef(d) => out.extend(parameters(&d.args).iter().map(|a| a.arg.to_string())),
            _ => {}
        }
        for expr in crate::python::walk::owned_exprs(stmt) {
            match expr {
                ast::Expr::Lambda(l) => out.extend(parameters(&l.args).iter().map(|a| a.arg.to_string())),
                ast::Expr::ListComp(c) => c.generators.iter().for_each(|g| target_names(&g.target, &mut out)),
                ast::Expr::SetComp(c) => c.generators.iter().for_each(|g| target_names(&g.target, &mut out)),
                ast::Expr::GeneratorExp(c) => c.generators.iter().for_each(|g| target_names(&g.target, &mut out)),
                ast::Expr::DictComp(c) => c.generators.iter().for_each(|g| target_names(&g.target, &mut out)),
                ast::Expr::NamedExpr(n) => target_names(&n.target, &mut out),
                _ => {}
            }
        }
    }
    out
}

/// The names one statement binds itself, not counting its nested statements (`None`
/// for a simple statement, whose [`bind_stmt`] names are all its own).
fn own_bindings(stmt: &ast::Stmt) -> Option<HashSet<String>> {
    if child_blocks(stmt).is_empty() {
        return None;
    }
    let mut out = HashSet::new();
    for expr in stmt_exprs(stmt) {
        store_names(expr, &mut out);
    }
    let handlers = match stmt {
        ast::Stmt::Try(t) => &t.handlers[..],
        ast::Stmt::TryStar(t) => &t.handlers[..],
        _ => &[],
    };
    for handler in handlers {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        out.extend(h.name.as_ref().map(|n| n.to_string()));
    }
    if let ast::Stmt::Match(m) = stmt {
        let mut names = Vec::new();
        m.cases.iter().for_each(|c| pattern_names(&c.pattern, &mut names));
        out.extend(names.into_iter().map(str::to_string));
    }
    Some(out)
}

/// Python's builtin names (3.8 to 3.13): reading one needs no import.
pub(crate) fn is_builtin(name: &str) -> bool {
    BUILTINS.binary_search(&name).is_ok()
}

const BUILTINS: &[&str] = &[
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "BaseExceptionGroup", "BlockingIOError",
    "BrokenPipeError", "BufferError", "BytesWarning", "ChildProcessError", "ConnectionAbortedError",
    "ConnectionError", "ConnectionRefusedError", "ConnectionResetError", "DeprecationWarning", "EOFError", "Ellipsis",
    "EncodingWarning", "EnvironmentError", "Exception", "ExceptionGroup", "False", "FileExistsError",
    "FileNotFoundError", "FloatingPointError", "FutureWarning", "GeneratorExit", "IOError", "ImportError",
    "ImportWarning", "IndentationError", "IndexError", "InterruptedError", "IsADirectoryError", "KeyError",
    "KeyboardInterrupt", "LookupError", "MemoryError", "ModuleNotFoundError", "NameError", "None",
    "NotADirectoryError", "NotImplemented", "NotImplementedError", "OSError", "OverflowError",
    "PendingDeprecationWarning", "PermissionError", "ProcessLookupError", "PythonFinalizationError", "RecursionError",
    "ReferenceError", "ResourceWarning", "RuntimeError", "RuntimeWarning", "StopAsyncIteration", "StopIteration",
    "SyntaxError", "SyntaxWarning", "SystemError", "SystemExit", "TabError", "TimeoutError", "True", "TypeError",
    "UnboundLocalError", "UnicodeDecodeError", "UnicodeEncodeError", "UnicodeError", "UnicodeTranslateError",
    "UnicodeWarning", "UserWarning", "ValueError", "Warning", "ZeroDivisionError", "__build_class__", "__debug__",
    "__import__", "abs", "aiter", "all", "anext", "any", "ascii", "bin", "bool", "breakpoint", "bytearray", "bytes",
    "callable", "chr", "classmethod", "compile", "complex", "copyright", "credits", "delattr", "dict", "dir",
    "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset", "getattr", "hasattr",
    "hash", "help", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "license", "list", "map",
    "max", "memoryview", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range",
    "repr", "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum", "super", "tuple",
    "type", "zip",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> PyModule {
        PyModule::parse("m.py", text).unwrap()
    }

    #[test]
    fn doctests_read_their_module_globals() {
        let module = parsed(
            "def f(n):\n    \"\"\"Twice.\n\n    >>> from m import g\n    >>> f(g(2)) + helper(\n    ...     K)\n    \
             5\n    \"\"\"\n    return n\n",
        );
        let names: Vec<String> = doctest_reads(&module.suite).into_iter().collect();
        assert_eq!(names, ["K", "f", "helper"]);
    }

    #[test]
    fn builtins_are_sorted_for_the_binary_search() {
        assert!(BUILTINS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_builtin("len") && !is_builtin("globals") && !is_builtin("helper"));
    }

    #[test]
    fn locals_parameters_and_comprehension_targets_are_not_globals() {
        let module = parsed(
            "def f(a, *rest, k=DEFAULT):\n    b = helper(a)\n    c = [x for x in b if x > LIMIT]\n    \
             g = lambda y: y + OFFSET\n    return mod.attr(b, c, g, len(rest))\n",
        );
        let reads = reads(&module.suite);
        let globals: Vec<&str> = reads.globals.keys().map(String::as_str).collect();
        assert_eq!(globals, ["DEFAULT", "LIMIT", "OFFSET", "helper", "len", "mod"]);
        assert_eq!(reads.eager.iter().collect::<Vec<_>>(), ["DEFAULT"]);
        assert_eq!(reads.attributes.len(), 1);
        assert_eq!((reads.attributes[0].0.as_str(), reads.attributes[0].1.as_str()), ("mod", "attr"));
        assert!(reads.bound.contains("b") && reads.bound.contains("x") && reads.bound.contains("y"));
    }

    #[test]
    fn class_bodies_are_skipped_by_their_methods_and_global_declarations_are_seen() {
        let module = parsed(
            "class C(Base):\n    size = 3\n    other = size\n    def m(self):\n        global counter\n        \
             counter = size\n        return self\n",
        );
        let reads = reads(&module.suite);
        let globals: Vec<&str> = reads.globals.keys().map(String::as_str).collect();
        assert_eq!(globals, ["Base", "size"]);
        assert_eq!(reads.declared_global.iter().collect::<Vec<_>>(), ["counter"]);
    }

    #[test]
    fn a_module_binds_names_in_every_scope_but_imports_are_apart() {
        let module = parsed(
            "import os\nfrom m import n\nX = 1\ndef f(p):\n    import q\n    for i in p:\n        \
             with open(i) as fh:\n            pass\n    return [j for j in p]\ntry:\n    pass\nexcept E as err:\n    \
             pass\n",
        );
        let names = non_import_bindings(&module.suite);
        for name in ["X", "f", "p", "i", "fh", "j", "err"] {
            assert!(names.contains(name), "{name}");
        }
        for name in ["os", "n", "q"] {
            assert!(!names.contains(name), "{name}");
        }
    }
}
