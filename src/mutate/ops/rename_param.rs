//! `rename-param`: renames a function parameter used in the body to `<name>_value`: the
//! parameter itself and every load/store of the name inside the function, nested
//! functions, lambdas and classes included unless they bind the name themselves. One
//! splice covers the whole `def` with the rebuilt text. A parameter is left alone when
//! the new name already appears in the function, when something binds the name without
//! an expression (`import`, `except ... as`, `global`, `nonlocal`, a match capture, a
//! nested `def`/`class` of that name), and for `self`, `cls` and `__`-prefixed names.

use std::ops::Range;

use rustpython_ast::{self as ast, Ranged};

use super::support::{defined_function, finish};
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::walk::{arguments_exprs, child_blocks, expr_children, parameters, pattern_names, stmt_exprs};
use crate::python::PyModule;

pub(crate) struct RenameParam;

/// How a scope (a nested function's or class's body) relates to the name.
#[derive(PartialEq, Eq)]
enum Binding {
    /// The name is not bound there: it refers to the enclosing function's parameter.
    Free,
    /// The scope binds the name itself (assignment, parameter, `global`, `import`, ...).
    Local,
    /// `nonlocal name`: it rebinds the enclosing parameter by a bare identifier.
    Nonlocal,
}

/// Identifiers a statement binds without a `Name` node.
fn identifier_bindings(stmt: &ast::Stmt) -> Vec<&str> {
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
            for alias in &i.names {
                names.push(alias.asname.as_deref().unwrap_or(&alias.name));
            }
        }
        ast::Stmt::Global(g) => names.extend(g.names.iter().map(|n| n.as_str())),
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

/// How the statements of one scope bind `name` (not looking into nested scopes' bodies).
fn scope_binding(block: &[ast::Stmt], name: &str) -> Binding {
    let mut result = Binding::Free;
    for stmt in block {
        if let ast::Stmt::Nonlocal(n) = stmt {
            if n.names.iter().any(|n| n.as_str() == name) {
                return Binding::Nonlocal;
            }
        }
        if identifier_bindings(stmt).contains(&name) || stores(stmt_exprs(stmt), name) {
            result = Binding::Local;
        }
        if !matches!(stmt, ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_)) {
            for inner in child_blocks(stmt) {
                match scope_binding(inner, name) {
                    Binding::Nonlocal => return Binding::Nonlocal,
                    Binding::Local => result = Binding::Local,
                    Binding::Free => {}
                }
            }
        }
    }
    result
}

/// Whether any of `exprs` (lambda bodies excluded) stores to or deletes `name`.
fn stores(mut stack: Vec<&ast::Expr>, name: &str) -> bool {
    while let Some(expr) = stack.pop() {
        match expr {
            ast::Expr::Name(n) if n.id.as_str() == name && n.ctx != ast::ExprContext::Load => return true,
            ast::Expr::Lambda(l) => {
                let mut defaults = Vec::new();
                arguments_exprs(&l.args, &mut defaults);
                stack.extend(defaults);
            }
            // A comprehension's targets are its own; a walrus inside it still counts.
            ast::Expr::ListComp(c) => comprehension(&mut stack, [&*c.elt].into_iter(), &c.generators),
            ast::Expr::SetComp(c) => comprehension(&mut stack, [&*c.elt].into_iter(), &c.generators),
            ast::Expr::GeneratorExp(c) => comprehension(&mut stack, [&*c.elt].into_iter(), &c.generators),
            ast::Expr::DictComp(c) => comprehension(&mut stack, [&*c.key, &*c.value].into_iter(), &c.generators),
            other => stack.extend(expr_children(other)),
        }
    }
    false
}

fn comprehension<'a>(
    stack: &mut Vec<&'a ast::Expr>,
    elements: impl Iterator<Item = &'a ast::Expr>,
    generators: &'a [ast::Comprehension],
) {
    stack.extend(elements);
    for generator in generators {
        stack.push(&generator.iter);
        stack.extend(generator.ifs.iter());
    }
}

/// Collects the ranges of every `Name` that refers to the parameter.
struct Renamer<'a> {
    name: &'a str,
    hits: Vec<Range<usize>>,
    /// Set when a reference cannot be renamed by rewriting `Name` nodes.
    blocked: bool,
}

impl Renamer<'_> {
    fn block(&mut self, block: &[ast::Stmt]) {
        for stmt in block {
            self.stmt(stmt);
        }
    }

    fn stmt(&mut self, stmt: &ast::Stmt) {
        if identifier_bindings(stmt).contains(&self.name) {
            self.blocked = true;
        }
        if let ast::Stmt::Nonlocal(n) = stmt {
            if n.names.iter().any(|n| n.as_str() == self.name) {
                self.blocked = true;
            }
        }
        // A nested def's or class's header is evaluated here.
        for expr in stmt_exprs(stmt) {
            self.expr(expr);
        }
        match stmt {
            ast::Stmt::FunctionDef(d) => self.nested_function(&d.args, &d.body),
            ast::Stmt::AsyncFunctionDef(d) => self.nested_function(&d.args, &d.body),
            ast::Stmt::ClassDef(c) => match scope_binding(&c.body, self.name) {
                Binding::Free => self.block(&c.body),
                // A class body binding the name changes what its methods see: give up.
                Binding::Local | Binding::Nonlocal => self.blocked = true,
            },
            other => child_blocks(other).into_iter().for_each(|b| self.block(b)),
        }
    }

    fn nested_function(&mut self, args: &ast::Arguments, body: &[ast::Stmt]) {
        if parameters(args).iter().any(|a| a.arg.as_str() == self.name) {
            return;
        }
        match scope_binding(body, self.name) {
            Binding::Free => self.block(body),
            Binding::Local => {}
            Binding::Nonlocal => self.blocked = true,
        }
    }

    fn expr(&mut self, expr: &ast::Expr) {
        match expr {
            ast::Expr::Name(n) if n.id.as_str() == self.name => self.hits.push(PyModule::span(expr)),
            ast::Expr::Lambda(l) => {
                let mut defaults = Vec::new();
                arguments_exprs(&l.args, &mut defaults);
                defaults.into_iter().for_each(|e| self.expr(e));
                if !parameters(&l.args).iter().any(|a| a.arg.as_str() == self.name) {
                    self.expr(&l.body);
                }
            }
            other => expr_children(other).into_iter().for_each(|e| self.expr(e)),
        }
    }
}

impl Operator for RenameParam {
    fn name(&self) -> &'static str {
        "rename-param"
    }

    fn description(&self) -> &'static str {
        "renames a function parameter used in the body to `<name>_value`, with every use of the name inside the function"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Restructure
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        let sites = module.statements();
        for (index, site) in sites.iter().enumerate() {
            let (args, body) = match site.stmt {
                ast::Stmt::FunctionDef(d) => (&d.args, &d.body),
                ast::Stmt::AsyncFunctionDef(d) => (&d.args, &d.body),
                _ => continue,
            };
            let whole = PyModule::span(site.stmt);
            let source = &module.text[whole.clone()];
            let function = defined_function(&sites, index);
            for param in parameters(args) {
                let name = param.arg.as_str();
                let new_name = format!("{name}_value");
                // `__name` is mangled inside classes; leave those alone too.
                if name == "self" || name == "cls" || name.starts_with("__") || source.contains(&new_name) {
                    continue;
                }
                let mut renamer = Renamer { name, hits: Vec::new(), blocked: false };
                renamer.block(body);
                if renamer.blocked || renamer.hits.is_empty() {
                    continue;
                }
                let declared = param.range().start().to_usize();
                let mut hits = renamer.hits;
                hits.push(declared..declared + name.len());
                hits.sort_by_key(|r| std::cmp::Reverse(r.start));
                hits.dedup();
                let Some(rebuilt) = rebuild(source, whole.start, &hits, name, &new_name) else { continue };
                out.push(mutation_at(
                    self,
                    module,
                    &function,
                    whole.clone(),
                    rebuilt,
                    format!("rename parameter `{name}` → `{new_name}`"),
                ));
            }
        }
        finish(module, out)
    }
}

/// `source` (starting at byte `base`) with each of `hits` (sorted right to left, each
/// holding exactly `name`) replaced by `new_name`.
fn rebuild(source: &str, base: usize, hits: &[Range<usize>], name: &str, new_name: &str) -> Option<String> {
    let mut text = source.to_string();
    for hit in hits {
        let local = hit.start.checked_sub(base)?..hit.end.checked_sub(base)?;
        if text.get(local.clone())? != name {
            return None;
        }
        text.replace_range(local, new_name);
    }
    Some(text)
}
