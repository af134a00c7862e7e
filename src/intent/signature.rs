//! What the signature kinds share: the function or method whose signature changes
//! ([`Def`]: how a call binds its first parameter, which parameters a call fills by
//! position, its docstring) and its calls with their positional arguments ([`calls`]).
//!
//! The calls are those [`callers::calls_of`] tells apart from every other thing's,
//! docstrings' examples included (a signature change keeps what they show: their calls
//! are rewritten like any other), with a signature's own rules on top: only undecorated functions and methods (but for
//! `staticmethod` and `classmethod`), no dunder but `__init__` (whose calls spell the
//! class), and an instance method called through its class (`Class.m(obj, ...)`, the
//! positions shifted by one) has no calls one can rewrite.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rustpython_ast as ast;

use super::callers::{self, Doctests, Edit};
use super::naming;
use crate::python::walk::{expr_children, is_docstring, owned_exprs, walk_stmts};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// How a call binds the function's first parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Binding {
    /// A module-level function: nothing bound.
    Function,
    /// An instance method: `self` bound by `obj.m(...)`.
    Method,
    /// A class method: `cls` bound.
    ClassMethod,
    /// A static method: nothing bound.
    StaticMethod,
    /// `__init__`: `self` bound, called by the class's name.
    Init,
}

/// A function or method that contract kinds may change, in a parsed module.
pub(super) struct Def<'m> {
    pub(super) module: &'m PyModule,
    /// `func` or `Class.method`.
    pub(super) qual: String,
    /// The class holding a method.
    pub(super) class: Option<&'m str>,
    /// The `def` statement.
    pub(super) stmt: &'m ast::Stmt,
    pub(super) args: &'m ast::Arguments,
    pub(super) body: &'m [ast::Stmt],
    pub(super) binding: Binding,
}

impl<'m> Def<'m> {
    /// Every function and method of a module contract kinds may change, in source order.
    pub(super) fn all(module: &'m PyModule) -> Vec<Def<'m>> {
        let mut out = Vec::new();
        for stmt in &module.suite {
            if let ast::Stmt::ClassDef(class) = stmt {
                out.extend(class.body.iter().filter_map(|s| Def::of(module, s, Some(class.name.as_str()))));
            } else {
                out.extend(Def::of(module, stmt, None));
            }
        }
        out
    }

    /// The function or method qualified as `qual` in `module`, alone with its name.
    pub(super) fn find(module: &'m PyModule, qual: &str) -> Option<Def<'m>> {
        let mut found = Def::all(module).into_iter().filter(|d| d.qual == qual);
        let def = found.next()?;
        found.next().is_none().then_some(def)
    }

    fn of(module: &'m PyModule, stmt: &'m ast::Stmt, class: Option<&'m str>) -> Option<Def<'m>> {
        let (name, args, body, decorators) = parts(stmt)?;
        let decorator = match decorators {
            [] => None,
            [ast::Expr::Name(n)] => Some(n.id.as_str()),
            _ => return None,
        };
        let dunder = name.starts_with("__") && name.ends_with("__");
        let binding = match (class, decorator) {
            (None, None) if !dunder => Binding::Function,
            (Some(_), None) if name == "__init__" => Binding::Init,
            (Some(_), None) if !dunder => Binding::Method,
            (Some(_), Some("classmethod")) if !dunder => Binding::ClassMethod,
            (Some(_), Some("staticmethod")) if !dunder => Binding::StaticMethod,
            _ => return None,
        };
        let qual = class.map_or(name.to_string(), |c| format!("{c}.{name}"));
        Some(Def { module, qual, class, stmt, args, body, binding })
    }

    /// The `def`'s own name.
    pub(super) fn name(&self) -> &str {
        self.qual.rsplit('.').next().unwrap_or_default()
    }

    /// The name calls spell: the function's, or the class's for `__init__`.
    pub(super) fn callee(&self) -> &str {
        match (self.binding, self.class) {
            (Binding::Init, Some(class)) => class,
            _ => self.name(),
        }
    }

    /// The names a feature calling it uses (see `integrate::uses`): the function's
    /// module-level name, the class's for `__init__`, `.method` for a method.
    pub(super) fn uses(&self) -> BTreeSet<String> {
        match self.binding {
            Binding::Function | Binding::Init => BTreeSet::from([self.callee().to_string()]),
            _ => BTreeSet::from([format!(".{}", self.name())]),
        }
    }

    /// The parameters a call fills by position, in order (the bound `self`/`cls` left
    /// out): `(parameter, whether it may also be passed by keyword)`.
    pub(super) fn positional(&self) -> Vec<(&'m ast::ArgWithDefault, bool)> {
        let all = self.args.posonlyargs.iter().map(|a| (a, false)).chain(self.args.args.iter().map(|a| (a, true)));
        let bound = matches!(self.binding, Binding::Method | Binding::ClassMethod | Binding::Init);
        all.skip(usize::from(bound)).collect()
    }

    /// The byte range of the docstring, if the function has one.
    pub(super) fn docstring(&self) -> Option<Range<usize>> {
        self.body.first().filter(|s| is_docstring(s)).map(PyModule::span)
    }
}

/// A `def` statement's name, parameters, body and decorators.
fn parts(stmt: &ast::Stmt) -> Option<(&str, &ast::Arguments, &[ast::Stmt], &[ast::Expr])> {
    match stmt {
        ast::Stmt::FunctionDef(d) => Some((d.name.as_str(), &d.args, &d.body, &d.decorator_list)),
        ast::Stmt::AsyncFunctionDef(d) => Some((d.name.as_str(), &d.args, &d.body, &d.decorator_list)),
        _ => None,
    }
}

/// A parameter from its name to the end of its default (annotation included).
pub(super) fn parameter_span(arg: &ast::ArgWithDefault) -> Range<usize> {
    let name = PyModule::span(&arg.def);
    name.start..arg.default.as_ref().map_or(name.end, |d| PyModule::span(d.as_ref()).end)
}

/// A positional argument of a call.
#[derive(Debug, Clone)]
pub(super) struct Arg {
    pub(super) span: Range<usize>,
    /// `*args`: the positions after it are unknown.
    pub(super) starred: bool,
    /// Whether evaluating it may have an effect another argument observes (it calls,
    /// awaits, yields or assigns).
    pub(super) effects: bool,
}

/// One call of the function in a file of the tree.
#[derive(Debug, Clone)]
pub(super) struct Call {
    pub(super) path: String,
    /// The positional arguments, in order, with the call's bound first parameter left
    /// out.
    pub(super) args: Vec<Arg>,
    /// The keyword arguments' names, in order (`None` for a `**mapping`).
    pub(super) keywords: Vec<Option<String>>,
    /// The whole call expression.
    pub(super) span: Range<usize>,
    /// Where its last argument (positional or keyword) ends, by source position.
    pub(super) last_end: Option<usize>,
    /// Whether the call is a docstring's example (see [`callers::calls_of`]).
    pub(super) doctest: bool,
}

impl Call {
    /// Whether the call fills positions `0..=last` with arguments it spells, no `*args`
    /// among or before them.
    pub(super) fn fills(&self, last: usize) -> bool {
        self.args.len() > last && !self.args[..=last].iter().any(|a| a.starred)
    }

    /// Whether a `*args` may reach position `at` or an earlier one.
    pub(super) fn spreads_into(&self, at: usize) -> bool {
        self.args.iter().take(at + 1).any(|a| a.starred)
    }
}

/// Every call of `def` in the tree's Python files, with its positional arguments;
/// `None` when its calls cannot all be told apart (see [`callers::calls_of`]) or an
/// instance method is called through its class.
pub(super) fn calls(tree: &Snapshot, def: &Def) -> Option<Vec<Call>> {
    let attribute = matches!(def.binding, Binding::Method | Binding::ClassMethod | Binding::StaticMethod);
    let mut out = Vec::new();
    for caller in callers::calls_of_with(tree, def.callee(), attribute, Doctests::Rewrite)? {
        let mut stmts = Vec::new();
        walk_stmts(&caller.module.suite, &mut stmts);
        for expr in stmts.into_iter().flat_map(owned_exprs) {
            let ast::Expr::Call(call) = expr else { continue };
            if !caller.is_call(expr) {
                continue;
            }
            let through_class = matches!(call.func.as_ref(), ast::Expr::Attribute(a)
                if matches!(a.value.as_ref(), ast::Expr::Name(n) if Some(n.id.as_str()) == def.class));
            if through_class && def.binding == Binding::Method {
                return None;
            }
            let args = call
                .args
                .iter()
                .map(|a| Arg {
                    span: PyModule::span(a),
                    starred: matches!(a, ast::Expr::Starred(_)),
                    effects: has_effects(a),
                })
                .collect();
            let keywords = call.keywords.iter().map(|k| k.arg.as_ref().map(|a| a.to_string())).collect();
            let ends = call
                .args
                .iter()
                .map(|a| PyModule::span(a).end)
                .chain(call.keywords.iter().map(|k| PyModule::span(k).end));
            out.push(Call {
                path: caller.module.path.clone(),
                args,
                keywords,
                span: PyModule::span(expr),
                last_end: ends.max(),
                doctest: caller.doctest,
            });
        }
    }
    Some(out)
}

/// Whether evaluating `expr` may have an effect: it calls, awaits, yields or assigns.
pub(super) fn has_effects(expr: &ast::Expr) -> bool {
    let mut stack = vec![expr];
    while let Some(e) = stack.pop() {
        if matches!(
            e,
            ast::Expr::Call(_)
                | ast::Expr::Await(_)
                | ast::Expr::Yield(_)
                | ast::Expr::YieldFrom(_)
                | ast::Expr::NamedExpr(_)
        ) {
            return true;
        }
        stack.extend(expr_children(e));
    }
    false
}

/// Edits, by file.
pub(super) type Splices = BTreeMap<String, Vec<Edit>>;

/// The text of `range` in `path`'s file of `tree`.
pub(super) fn text_at<'t>(tree: &'t Snapshot, path: &str, range: &Range<usize>) -> Option<&'t str> {
    snapshot::text_of(tree, path)?.get(range.clone())
}

/// The index of the first line after the entry opened at `lines[at]` for `name`: its
/// lines indented deeper, and further entries of the same name at its indent.
pub(super) fn block_end(lines: &[(usize, &str)], at: usize, name: &str) -> usize {
    let own = indent(lines[at].1);
    let mut next = at + 1;
    while let Some((_, line)) = lines.get(next) {
        let deeper = indent(line) > own;
        let same_entry = indent(line) == own && entry_name(line) == Some(name);
        if line.trim().is_empty() || !(deeper || same_entry) {
            break;
        }
        next += 1;
    }
    next
}

pub(super) fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The parameter a docstring line opens an entry for: `name:`, `name (type):`,
/// `name : type`, `:param name:`, `:param type name:`, `:type name:`.
pub(super) fn entry_name(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    for field in [":param ", ":parameter ", ":arg ", ":type "] {
        if let Some(rest) = trimmed.strip_prefix(field) {
            return rest[..rest.find(':')?].rsplit(' ').next();
        }
    }
    let end = trimmed.find(|c: char| !naming::is_ident_char(c)).unwrap_or(trimmed.len());
    let (word, rest) = trimmed.split_at(end);
    let rest = rest.trim_start();
    (!word.is_empty() && (rest.starts_with(':') || rest.starts_with('('))).then_some(word)
}
