//! What `add-function` reads of modules: which definitions may be units, where a
//! function is defined and imported from, what a statement defines, a docstring's
//! summary, and a tree's Python files parsed on demand.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use rustpython_ast as ast;

use super::refs::{self, How, Use};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// The longest docstring summary a commit message carries.
pub(super) const SUMMARY_CHARS: usize = 60;

pub(super) fn def_name(stmt: &ast::Stmt) -> Option<&str> {
    match stmt {
        ast::Stmt::FunctionDef(d) => Some(d.name.as_str()),
        ast::Stmt::AsyncFunctionDef(d) => Some(d.name.as_str()),
        _ => None,
    }
}

pub(super) fn decorators(stmt: &ast::Stmt) -> &[ast::Expr] {
    match stmt {
        ast::Stmt::FunctionDef(d) => &d.decorator_list,
        ast::Stmt::AsyncFunctionDef(d) => &d.decorator_list,
        ast::Stmt::ClassDef(d) => &d.decorator_list,
        _ => &[],
    }
}

/// The functions and methods of a module that may be units: (class, def).
pub(super) fn units(module: &PyModule) -> Vec<(Option<&ast::StmtClassDef>, &ast::Stmt)> {
    let mut out = Vec::new();
    for stmt in &module.suite {
        match stmt {
            ast::Stmt::ClassDef(class) => {
                out.extend(class.body.iter().filter(|s| def_name(s).is_some()).map(|s| (Some(class), s)));
            }
            other if def_name(other).is_some() => out.push((None, other)),
            _ => {}
        }
    }
    out
}

/// The unit's statement in a module, if it is there.
pub(super) fn find<'m>(module: &'m PyModule, class: Option<&str>, name: &str) -> Option<&'m ast::Stmt> {
    let body = match class {
        None => &module.suite,
        Some(class) => module.suite.iter().find_map(|s| match s {
            ast::Stmt::ClassDef(c) if c.name.as_str() == class => Some(&c.body),
            _ => None,
        })?,
    };
    body.iter().find(|s| def_name(s) == Some(name))
}

pub(super) fn is_special(name: &str) -> bool {
    name.len() > 2 && name.starts_with('_') && name.ends_with('_')
}

/// An overload, a property's setter or deleter: a definition that is not a unit alone.
pub(super) fn is_variant(stmt: &ast::Stmt) -> bool {
    decorators(stmt)
        .iter()
        .filter_map(refs::dotted)
        .any(|d| d == "overload" || d.ends_with(".overload") || d.ends_with(".setter") || d.ends_with(".deleter"))
}

/// What a file's imports bind (see [`refs::import_bindings`]).
pub(super) type Bindings = BTreeMap<String, Vec<Vec<String>>>;
/// The names a statement defines in its scope (`def`, `class`, assignment targets).
pub(super) fn defined_names(stmt: &ast::Stmt) -> Vec<&str> {
    let targets: Vec<&ast::Expr> = match stmt {
        ast::Stmt::FunctionDef(d) => return vec![d.name.as_str()],
        ast::Stmt::AsyncFunctionDef(d) => return vec![d.name.as_str()],
        ast::Stmt::ClassDef(d) => return vec![d.name.as_str()],
        ast::Stmt::Assign(a) => a.targets.iter().collect(),
        ast::Stmt::AnnAssign(a) => vec![a.target.as_ref()],
        ast::Stmt::AugAssign(a) => vec![a.target.as_ref()],
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    let mut stack = targets;
    while let Some(target) = stack.pop() {
        match target {
            ast::Expr::Name(n) => out.push(n.id.as_str()),
            ast::Expr::Tuple(t) => stack.extend(t.elts.iter()),
            ast::Expr::List(l) => stack.extend(l.elts.iter()),
            ast::Expr::Starred(s) => stack.push(&s.value),
            _ => {}
        }
    }
    out
}

pub(super) fn is_init(path: &str) -> bool {
    path == "__init__.py" || path.ends_with("/__init__.py")
}

/// The modules a function can be imported from: its own, and the packages whose
/// `__init__.py` re-exports it (from its module or from another such package; a star
/// import counts).
pub(super) fn exporters(home: &str, name: &str, inits: &[&PyModule]) -> Vec<Vec<String>> {
    let mut out = vec![refs::module_parts(home)];
    loop {
        let found: Vec<Vec<String>> = inits
            .iter()
            .map(|m| (refs::module_parts(&m.path), m))
            .filter(|(parts, m)| {
                !out.contains(parts) && (!imports_of(m, name, &out).is_empty() || star_imports(m, &out))
            })
            .map(|(parts, _)| parts)
            .collect();
        if found.is_empty() {
            return out;
        }
        out.extend(found);
    }
}

/// The `from` imports of `name` from one of `exporters` in a module: (index of the
/// statement in `PyModule::statements`, index of the name, local name).
pub(super) fn imports_of(module: &PyModule, name: &str, exporters: &[Vec<String>]) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (index, site) in module.statements().iter().enumerate() {
        let ast::Stmt::ImportFrom(import) = site.stmt else { continue };
        let target = refs::from_target(&module.path, import);
        if !exporters.iter().any(|e| refs::names_module(&target, e)) {
            continue;
        }
        for (alias_index, alias) in import.names.iter().enumerate() {
            if alias.name.as_str() == name {
                out.push((index, alias_index, alias.asname.as_ref().unwrap_or(&alias.name).to_string()));
            }
        }
    }
    out
}

/// Whether a module star-imports one of `exporters`.
pub(super) fn star_imports(module: &PyModule, exporters: &[Vec<String>]) -> bool {
    refs::statements(&module.suite).into_iter().any(|stmt| match stmt {
        ast::Stmt::ImportFrom(import) => {
            let target = refs::from_target(&module.path, import);
            import.names.iter().any(|a| a.name.as_str() == "*")
                && exporters.iter().any(|e| refs::names_module(&target, e))
        }
        _ => false,
    })
}

/// Whether an attribute use reads from one of `exporters` (`pricing.tax`).
pub(super) fn reads_exporter(u: &Use, bindings: &Bindings, exporters: &[Vec<String>]) -> bool {
    u.value
        .is_some_and(|v| refs::resolve(v, bindings).iter().any(|t| exporters.iter().any(|e| refs::names_module(t, e))))
}

/// Whether a module-level name is defined by another statement at module scope.
pub(super) fn defined_elsewhere(module: &PyModule, stmt: &ast::Stmt, name: &str) -> bool {
    refs::module_scope(&module.suite).into_iter().any(|s| !std::ptr::eq(s, stmt) && defined_names(s).contains(&name))
}

/// The one-line summary of a function's docstring for its commit message: its first
/// paragraph, first letter lowercased (not an acronym's), no trailing period; `None`
/// when there is none, it trails off (`...`, a comma) or it is longer than
/// [`SUMMARY_CHARS`].
pub(super) fn summary(stmt: &ast::Stmt) -> Option<String> {
    match stmt {
        ast::Stmt::FunctionDef(d) => summary_of_body(&d.body),
        ast::Stmt::AsyncFunctionDef(d) => summary_of_body(&d.body),
        _ => None,
    }
}

/// The one-line summary of the docstring opening `body` (a function's, a module's), as
/// [`summary`] says.
pub(super) fn summary_of_body(body: &[ast::Stmt]) -> Option<String> {
    let ast::Stmt::Expr(expr) = body.first()? else { return None };
    let ast::Expr::Constant(constant) = expr.value.as_ref() else { return None };
    let ast::Constant::Str(doc) = &constant.value else { return None };
    let paragraph: Vec<&str> = doc.trim().lines().map(str::trim).take_while(|l| !l.is_empty()).collect();
    let joined = paragraph.join(" ");
    // A paragraph trailing off (`...`, a comma) is no sentence to quote.
    let text = joined.strip_suffix('.').unwrap_or(&joined).trim_end();
    let unfinished = text.ends_with(['.', ',', ';', ':', '…']);
    if text.is_empty() || unfinished || text.chars().count() > SUMMARY_CHARS {
        return None;
    }
    let mut chars = text.chars();
    let first = chars.next()?;
    let acronym = chars.clone().next().is_some_and(char::is_uppercase);
    if first.is_uppercase() && !acronym {
        return Some(first.to_lowercase().chain(chars).collect());
    }
    Some(text.to_string())
}

/// A tree's Python files, parsed on demand.
pub(super) struct Files<'t> {
    tree: &'t Snapshot,
    parsed: RefCell<BTreeMap<String, Option<Rc<PyModule>>>>,
}

impl<'t> Files<'t> {
    pub(super) fn new(tree: &'t Snapshot) -> Self {
        Files { tree, parsed: RefCell::new(BTreeMap::new()) }
    }

    pub(super) fn text(&self, path: &str) -> Option<&'t str> {
        snapshot::text_of(self.tree, path)
    }

    pub(super) fn get(&self, path: &str) -> Option<Rc<PyModule>> {
        if let Some(module) = self.parsed.borrow().get(path) {
            return module.clone();
        }
        let module = self.text(path).and_then(|text| PyModule::parse(path, text).ok()).map(Rc::new);
        self.parsed.borrow_mut().insert(path.to_string(), module.clone());
        module
    }

    /// The Python files whose text holds `word` as an identifier.
    pub(super) fn mentioning(&self, word: &str) -> Vec<String> {
        self.tree
            .keys()
            .filter(|p| p.ends_with(".py") && self.text(p).is_some_and(|t| refs::mentions(t, word)))
            .cloned()
            .collect()
    }

    /// Whether a file other than `path` imports `name` from it or reads it as an
    /// attribute of it.
    pub(super) fn used_from(&self, path: &str, name: &str) -> bool {
        let home = [refs::module_parts(path)];
        self.mentioning(name).iter().filter(|p| p.as_str() != path).any(|other| {
            let Some(module) = self.get(other) else { return true };
            let bindings = refs::import_bindings(other, &module.suite);
            !imports_of(&module, name, &home).is_empty()
                || refs::uses(&module.suite)
                    .iter()
                    .any(|u| u.how == How::Attribute && u.name == name && reads_exporter(u, &bindings, &home))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary_of(doc: &str) -> Option<String> {
        let text = format!("def f():\n    \"\"\"{doc}\"\"\"\n    return 1\n");
        summary(&PyModule::parse("m.py", &text).unwrap().suite[0])
    }

    #[test]
    fn messages_quote_short_finished_summaries() {
        assert_eq!(summary_of("Return the area.").as_deref(), Some("return the area"));
        assert_eq!(summary_of("Split ``x``\n    in two.\n\n    More.").as_deref(), Some("split ``x`` in two"));
        assert_eq!(summary_of("HTTP date of *t*.").as_deref(), Some("HTTP date of *t*"));
        assert_eq!(summary_of("Return ``a``, ``f(a)``, ..."), None);
        assert_eq!(summary_of(&"Long ".repeat(20)), None);
    }
}
