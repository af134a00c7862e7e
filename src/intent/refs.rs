//! Who refers to what among a tree's Python files: a file's dotted module path, the
//! module an import names (relative imports resolved), what a file's imports bind, and
//! the identifiers a piece of code uses (names, attributes, parameters, identifier-like
//! string constants) with where they sit. Pure functions of parsed modules; the edits
//! live in `strip`.

use std::collections::BTreeMap;

use rustpython_ast::{self as ast, Ranged};

use crate::python::walk;

/// The dotted path of a Python file as components: `src/ledger/items.py` →
/// `[src, ledger, items]`; a package's `__init__.py` is the package.
pub(crate) fn module_parts(path: &str) -> Vec<String> {
    let stem = path.strip_suffix(".py").unwrap_or(path);
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    if parts.last().is_some_and(|p| p == "__init__") {
        parts.pop();
    }
    parts
}

/// The module an import statement names, as components; a relative import is resolved
/// against the importing file's package (to the full path of the target).
pub(crate) fn import_target(importer: &str, module: Option<&str>, level: u32) -> Vec<String> {
    let mut parts = Vec::new();
    if level > 0 {
        parts = module_parts(importer);
        if !importer.ends_with("__init__.py") {
            parts.pop();
        }
        for _ in 1..level {
            parts.pop();
        }
    }
    parts.extend(module.into_iter().flat_map(|m| m.split('.')).map(str::to_string));
    parts
}

/// Whether an import's target names the module at `parts`: the target is a suffix of its
/// path, so `ledger.items` names `src/ledger/items.py` under a `src/` layout.
pub(crate) fn names_module(target: &[String], parts: &[String]) -> bool {
    !target.is_empty() && parts.ends_with(target)
}

/// The target module of a `from` import.
pub(crate) fn from_target(importer: &str, import: &ast::StmtImportFrom) -> Vec<String> {
    import_target(importer, import.module.as_deref(), import.level.map_or(0, |l| l.to_u32()))
}

/// What the imports of a file bind: local name → the dotted path it stands for
/// (`import a.b` binds `a` → `[a]`; `import a.b as x` binds `x` → `[a, b]`;
/// `from a import b as x` binds `x` → `[a, b]`). Imports anywhere in the file count.
pub(crate) fn import_bindings(path: &str, suite: &[ast::Stmt]) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut out: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    for stmt in statements(suite) {
        match stmt {
            ast::Stmt::Import(import) => {
                for alias in &import.names {
                    let dotted: Vec<String> = alias.name.split('.').map(str::to_string).collect();
                    let (local, target) = match &alias.asname {
                        Some(asname) => (asname.to_string(), dotted),
                        None => (dotted[0].clone(), vec![dotted[0].clone()]),
                    };
                    out.entry(local).or_default().push(target);
                }
            }
            ast::Stmt::ImportFrom(import) => {
                let target = from_target(path, import);
                for alias in import.names.iter().filter(|a| a.name.as_str() != "*") {
                    let local = alias.asname.as_ref().unwrap_or(&alias.name).to_string();
                    let mut full = target.clone();
                    full.push(alias.name.to_string());
                    out.entry(local).or_default().push(full);
                }
            }
            _ => {}
        }
    }
    out
}

/// The dotted paths a `Name`/`Attribute` chain may stand for, through the file's import
/// bindings: with `import ledger.pricing`, `ledger.pricing` → `[ledger, pricing]`.
pub(crate) fn resolve(expr: &ast::Expr, bindings: &BTreeMap<String, Vec<Vec<String>>>) -> Vec<Vec<String>> {
    let Some(dotted) = dotted(expr) else { return Vec::new() };
    let mut parts = dotted.split('.');
    let first = parts.next().unwrap_or_default();
    let rest: Vec<String> = parts.map(str::to_string).collect();
    bindings
        .get(first)
        .into_iter()
        .flatten()
        .map(|target| target.iter().cloned().chain(rest.iter().cloned()).collect())
        .collect()
}

/// The dotted text of a `Name`/`Attribute` chain (`a.b.c`), if it is one.
pub(crate) fn dotted(expr: &ast::Expr) -> Option<String> {
    match expr {
        ast::Expr::Name(n) => Some(n.id.to_string()),
        ast::Expr::Attribute(a) => Some(format!("{}.{}", dotted(&a.value)?, a.attr)),
        _ => None,
    }
}

/// Every statement of a block, nested ones included, in source order.
pub(crate) fn statements(block: &[ast::Stmt]) -> Vec<&ast::Stmt> {
    let mut out = Vec::new();
    walk::walk_stmts(block, &mut out);
    out
}

/// How an identifier is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum How {
    /// A `Name` read (or deleted).
    Name,
    /// A `Name` assigned.
    Store,
    /// The attribute of an `Attribute` (`x.attr`).
    Attribute,
    /// A parameter of a function or lambda (how pytest asks for fixtures).
    Parameter,
    /// An identifier-like string constant (`__all__` entries, `getattr(x, "name")`,
    /// string annotations, `usefixtures("name")`).
    Text,
}

/// One use of an identifier: what, how, where (the byte offset of the node), and for an
/// attribute the expression it is read from.
pub(crate) struct Use<'a> {
    pub(crate) name: &'a str,
    pub(crate) how: How,
    pub(crate) offset: usize,
    pub(crate) value: Option<&'a ast::Expr>,
}

impl Use<'_> {
    /// Whether this is an attribute read on `self` or `cls` (one of the class's own).
    pub(crate) fn on_own_instance(&self) -> bool {
        self.how == How::Attribute
            && matches!(self.value, Some(ast::Expr::Name(n)) if matches!(n.id.as_str(), "self" | "cls"))
    }
}

/// Every identifier use in a block (nested statements included): names, attributes,
/// parameters and identifier-like strings.
pub(crate) fn uses(block: &[ast::Stmt]) -> Vec<Use<'_>> {
    let mut out = Vec::new();
    for stmt in statements(block) {
        own_uses(stmt, &mut out);
    }
    out
}

/// The uses inside one statement, nested statements included.
pub(crate) fn uses_of(stmt: &ast::Stmt) -> Vec<Use<'_>> {
    uses(std::slice::from_ref(stmt))
}

/// The uses of a statement itself, its nested statements excluded: for a `def` or a
/// `class`, those of its header (decorators, parameters, defaults, bases).
pub(crate) fn header_uses(stmt: &ast::Stmt) -> Vec<Use<'_>> {
    let mut out = Vec::new();
    own_uses(stmt, &mut out);
    out
}

fn own_uses<'a>(stmt: &'a ast::Stmt, out: &mut Vec<Use<'a>>) {
    match stmt {
        ast::Stmt::FunctionDef(d) => parameter_uses(&d.args, out),
        ast::Stmt::AsyncFunctionDef(d) => parameter_uses(&d.args, out),
        _ => {}
    }
    for expr in walk::owned_exprs(stmt) {
        expr_use(expr, out);
    }
}

/// The statements at module scope: the module's own and those in its `if`, `try`,
/// `with`... blocks, not those of function or class bodies.
pub(crate) fn module_scope(suite: &[ast::Stmt]) -> Vec<&ast::Stmt> {
    let mut out = Vec::new();
    let mut stack: Vec<&ast::Stmt> = suite.iter().rev().collect();
    while let Some(stmt) = stack.pop() {
        out.push(stmt);
        for block in walk::child_blocks(stmt).into_iter().rev() {
            stack.extend(block.iter().rev());
        }
    }
    out
}

fn parameter_uses<'a>(args: &'a ast::Arguments, out: &mut Vec<Use<'a>>) {
    for arg in walk::parameters(args) {
        out.push(Use {
            name: arg.arg.as_str(),
            how: How::Parameter,
            offset: arg.range().start().to_usize(),
            value: None,
        });
    }
}

fn expr_use<'a>(expr: &'a ast::Expr, out: &mut Vec<Use<'a>>) {
    let offset = expr.range().start().to_usize();
    match expr {
        ast::Expr::Name(n) => {
            let how = if n.ctx == ast::ExprContext::Store { How::Store } else { How::Name };
            out.push(Use { name: n.id.as_str(), how, offset, value: None });
        }
        ast::Expr::Attribute(a) => {
            out.push(Use { name: a.attr.as_str(), how: How::Attribute, offset, value: Some(&a.value) });
        }
        ast::Expr::Lambda(l) => parameter_uses(&l.args, out),
        ast::Expr::Constant(c) => {
            if let ast::Constant::Str(s) = &c.value {
                if is_identifier(s) {
                    out.push(Use { name: s.as_str(), how: How::Text, offset, value: None });
                }
            }
        }
        _ => {}
    }
}

/// Whether `s` is a Python identifier (ASCII rules, enough for names we look for).
pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_alphabetic()) && chars.all(|c| c == '_' || c.is_alphanumeric())
}

/// Whether `text` holds `word` as a whole identifier somewhere (a cheap filter before
/// parsing a file to look for uses of a name).
pub(crate) fn mentions(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c == '_' || c.is_alphanumeric();
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> Vec<String> {
        s.split('.').map(str::to_string).collect()
    }

    #[test]
    fn modules_and_imports_resolve_by_path_suffix() {
        assert_eq!(module_parts("src/ledger/items.py"), parts("src.ledger.items"));
        assert_eq!(module_parts("src/ledger/__init__.py"), parts("src.ledger"));
        assert_eq!(import_target("src/ledger/__init__.py", Some("items"), 1), parts("src.ledger.items"));
        assert_eq!(import_target("src/ledger/stock.py", Some("items"), 1), parts("src.ledger.items"));
        assert_eq!(import_target("src/ledger/sub/x.py", None, 2), parts("src.ledger"));
        assert!(names_module(&parts("ledger.items"), &parts("src.ledger.items")));
        assert!(!names_module(&parts("ledger.item"), &parts("src.ledger.items")));
    }

    #[test]
    fn mentions_whole_words_only() {
        assert!(mentions("x = tax(1)", "tax"));
        assert!(!mentions("x = taxes(1) + syntax", "tax"));
    }
}
