//! How `scale-param` and `scale-return` follow the calls of one function through a tree
//! ([`call_edits`]): how its calls are spelled and bind their arguments ([`Callable`]),
//! which files reach it by its bare name (those that define or import it) and which
//! through a module (`_.delay()`), and the refusals that keep a conversion complete (a
//! namesake definition, an import under another name, a subclassed constructor, the
//! function used as a value).

use std::collections::{BTreeMap, BTreeSet};

use rustpython_ast as ast;

use super::callers::spelled;
use super::naming::occurs;
use super::rename_local::Function;
use super::scale::Edit;
use crate::python::walk::{owned_exprs, walk_stmts};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// How calls of a function are spelled and bind their arguments.
#[derive(Clone)]
pub(super) struct Callable {
    /// The name a call spells (the class's for `__init__`).
    pub(super) name: String,
    pub(super) kind: Binding,
    /// Index among the positional parameters of the one converted (`self` counted);
    /// `None` when keyword-only.
    pub(super) index: Option<usize>,
    /// Whether the bare name is the function in the file at hand: the file defines or
    /// imports it (a module-level function or a class). Elsewhere the name is a
    /// namesake (a parameter, a local) and only `module.name` reaches the function.
    by_name: bool,
    /// The names the file at hand binds to modules (`import pydash as _`): a function's
    /// attribute calls are of a module (`_.delay()`), never of an object.
    modules: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Binding {
    Function,
    Method,
    Static,
    Class,
    Init,
}

/// The shape of calls of `function`, if it is one whose calls this kind follows (a
/// module-level function or a method of a top-level class, undecorated but for
/// `staticmethod`/`classmethod`, no dunder but `__init__`); its `index` is unset.
pub(super) fn shape(module: &PyModule, function: &Function) -> Option<Callable> {
    if !function.enclosing.is_empty() {
        return None;
    }
    let decorators: Vec<&str> = module.text[function.header_start..function.span.start]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let parts: Vec<&str> = function.qual.split('.').collect();
    let (class, def) = match parts[..] {
        [def] => (None, def),
        [class, def] if function.method => (Some(class), def),
        _ => return None,
    };
    let kind = match (class, def, &decorators[..]) {
        (None, _, []) => Binding::Function,
        (Some(_), "__init__", []) => Binding::Init,
        (Some(_), _, []) => Binding::Method,
        (Some(_), _, ["@staticmethod"]) => Binding::Static,
        (Some(_), _, ["@classmethod"]) => Binding::Class,
        _ => return None,
    };
    if def.starts_with("__") && def.ends_with("__") && kind != Binding::Init {
        return None;
    }
    let name = if kind == Binding::Init { class?.to_string() } else { def.to_string() };
    Some(Callable { name, kind, index: None, by_name: true, modules: Vec::new() })
}

/// What [`call_edits`] asks of each file: its edits, given its parsed module and every
/// statement of it; `None` refuses the site.
pub(super) type PerFile<'a> = dyn Fn(&PyModule, &[&ast::Stmt], &Callable) -> Option<Vec<Edit>> + 'a;

/// For every Python file of `tree` that spells the callable's name, `per_file`'s edits of
/// it (given its parsed module, every statement and the callable as that file spells
/// it); `None` when a call cannot be followed: the name is defined twice, imported under
/// another, a constructor's class is subclassed, the function is used as a value, or
/// `per_file` refuses. A file that neither defines nor imports a module-level name
/// reaches it only as an attribute (`module.name`): its bare namesakes (a parameter
/// `delay` of another function) are neither calls of it nor uses as a value.
pub(super) fn call_edits(
    tree: &Snapshot,
    callable: &Callable,
    per_file: &PerFile,
) -> Option<BTreeMap<String, Vec<Edit>>> {
    let mut files: BTreeMap<String, Vec<Edit>> = BTreeMap::new();
    let mut definitions = 0;
    for path in tree.keys().filter(|p| p.ends_with(".py")) {
        let text = snapshot::text_of(tree, path)?;
        if !occurs(text, &callable.name) {
            continue;
        }
        let module = PyModule::parse(path, text).ok()?;
        let mut stmts = Vec::new();
        walk_stmts(&module.suite, &mut stmts);
        // A method of the function's name is no namesake of a function or a class.
        let methods: Vec<&ast::Stmt> = match callable.kind {
            Binding::Function | Binding::Init => stmts
                .iter()
                .filter_map(|s| match s {
                    ast::Stmt::ClassDef(c) => Some(c.body.iter()),
                    _ => None,
                })
                .flatten()
                .collect(),
            _ => Vec::new(),
        };
        let defining: Vec<&ast::Stmt> =
            stmts.iter().copied().filter(|s| !methods.iter().any(|m| std::ptr::eq(*m, *s))).collect();
        let here = Callable { by_name: callable.binds(&defining), modules: modules(tree, &stmts), ..callable.clone() };
        for stmt in &defining {
            match stmt {
                ast::Stmt::FunctionDef(d) if d.name.as_str() == callable.name => definitions += 1,
                ast::Stmt::AsyncFunctionDef(d) if d.name.as_str() == callable.name => definitions += 1,
                ast::Stmt::ClassDef(c) => {
                    definitions += usize::from(c.name.as_str() == callable.name);
                    if callable.kind == Binding::Init && c.bases.iter().any(|b| spelled(b, &callable.name)) {
                        return None;
                    }
                }
                ast::Stmt::ImportFrom(i)
                    if i.names.iter().any(|a| a.name.as_str() == callable.name && a.asname.is_some()) =>
                {
                    return None;
                }
                _ => {}
            }
        }
        if here.as_value(&stmts) {
            return None;
        }
        let edits = per_file(&module, &stmts, &here)?;
        if !edits.is_empty() {
            files.insert(path.clone(), edits);
        }
    }
    // The tree defines the name once: the function, or the class of a constructor.
    (definitions == 1).then_some(files)
}

/// The names statements bind to modules: `import a.b as c` (`c`), `import a.b` (`a`),
/// `from shop import pricing` when the tree has a module `pricing`.
fn modules(tree: &Snapshot, stmts: &[&ast::Stmt]) -> Vec<String> {
    let bound = |a: &ast::Alias| {
        a.asname.as_ref().unwrap_or(&a.name).as_str().split('.').next().unwrap_or_default().to_string()
    };
    let is_module = |name: &str| {
        tree.keys().any(|p| {
            let p = p.strip_suffix(".py").unwrap_or(p);
            let p = p.strip_suffix("/__init__").unwrap_or(p);
            p == name || p.ends_with(&format!("/{name}"))
        })
    };
    let mut out = Vec::new();
    for stmt in stmts {
        match stmt {
            ast::Stmt::Import(i) => out.extend(i.names.iter().map(bound)),
            ast::Stmt::ImportFrom(i) => out.extend(i.names.iter().filter(|a| is_module(a.name.as_str())).map(bound)),
            _ => {}
        }
    }
    out
}

impl Callable {
    /// The callable converting its positional parameter `index`.
    pub(super) fn with_index(self, index: Option<usize>) -> Callable {
        Callable { index, ..self }
    }

    /// Whether the bare name is the function in a file of these statements: a method's
    /// name is never bare; a function or a class is when the file defines it or imports
    /// it (by name or with a star).
    fn binds(&self, stmts: &[&ast::Stmt]) -> bool {
        let name = self.name.as_str();
        matches!(self.kind, Binding::Function | Binding::Init)
            && stmts.iter().any(|stmt| match stmt {
                ast::Stmt::FunctionDef(d) => d.name.as_str() == name,
                ast::Stmt::AsyncFunctionDef(d) => d.name.as_str() == name,
                ast::Stmt::ClassDef(c) => c.name.as_str() == name,
                ast::Stmt::ImportFrom(i) => {
                    i.names.iter().any(|a| matches!(a.name.as_str(), "*") || a.name.as_str() == name)
                }
                _ => false,
            })
    }

    /// Whether an attribute is read from a module the file imports (`_.delay`).
    fn of_module(&self, attribute: &ast::ExprAttribute) -> bool {
        matches!(attribute.value.as_ref(), ast::Expr::Name(v) if self.modules.iter().any(|m| m == v.id.as_str()))
    }

    /// Whether a call's callee is the function.
    pub(super) fn is_callee(&self, func: &ast::Expr) -> bool {
        let name = self.name.as_str();
        match (self.kind, func) {
            (Binding::Function | Binding::Init, ast::Expr::Name(n)) => self.by_name && n.id.as_str() == name,
            (Binding::Function, ast::Expr::Attribute(a)) => a.attr.as_str() == name && self.of_module(a),
            (_, ast::Expr::Attribute(a)) => a.attr.as_str() == name,
            _ => false,
        }
    }

    /// How many leading parameters a call spelled `func` binds itself (`self` of a
    /// method called on an object).
    pub(super) fn shift(&self, func: &ast::Expr) -> usize {
        match self.kind {
            Binding::Function | Binding::Static => 0,
            Binding::Init | Binding::Class => 1,
            Binding::Method => match func {
                ast::Expr::Attribute(a) if matches!(a.value.as_ref(), ast::Expr::Name(v) if v.id.as_str().starts_with(char::is_uppercase)) => {
                    0
                }
                _ => 1,
            },
        }
    }

    /// Whether `stmts` use the function as a value (not called, nor handed to
    /// `partial`); a constructor's class may be (`isinstance`).
    fn as_value(&self, stmts: &[&ast::Stmt]) -> bool {
        if self.kind == Binding::Init {
            return false;
        }
        let exprs: Vec<&ast::Expr> = stmts.iter().flat_map(|s| owned_exprs(s)).collect();
        let mut called: BTreeSet<usize> = BTreeSet::new();
        for expr in &exprs {
            let ast::Expr::Call(call) = expr else { continue };
            if self.is_callee(&call.func) {
                called.insert(PyModule::span(call.func.as_ref()).start);
            } else if spelled(&call.func, "partial") && call.args.first().is_some_and(|f| self.is_callee(f)) {
                called.insert(PyModule::span(&call.args[0]).start);
            }
        }
        exprs.iter().any(|e| {
            let load = match e {
                ast::Expr::Name(n) => n.ctx == ast::ExprContext::Load,
                ast::Expr::Attribute(a) => a.ctx == ast::ExprContext::Load,
                _ => false,
            };
            let named = match e {
                ast::Expr::Name(n) => self.by_name && n.id.as_str() == self.name,
                ast::Expr::Attribute(a) if self.kind == Binding::Function => {
                    a.attr.as_str() == self.name && self.of_module(a)
                }
                _ => spelled(e, &self.name),
            };
            load && named && !called.contains(&PyModule::span(*e).start)
        })
    }
}

/// `text` with `edits` made; identical edits count once, overlapping ones refuse.
pub(super) fn spliced(text: &str, mut edits: Vec<Edit>) -> Option<String> {
    edits.sort_by_key(|(r, s)| (r.start, r.end, s.clone()));
    edits.dedup();
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    for (range, replacement) in edits {
        if range.start < done {
            return None;
        }
        out.push_str(&text[done..range.start]);
        out.push_str(&replacement);
        done = range.end;
    }
    out.push_str(&text[done..]);
    Some(out)
}
