//! `scale-param` (contract, units): a numeric parameter of one function or method of a
//! source module changes unit ([`scale`]: seconds ↔ milliseconds, percent ↔ fraction),
//! and every call in the tree (sources and tests) converts the value it passes.
//!
//! Which parameters: a name that says its unit (`timeout_secs`, `delay_ms`, `percent`,
//! `ratio`) is renamed for the new one (`timeout_ms`), with its keyword arguments and its
//! mentions in the function's docstring and comments; a name that only says it is a
//! duration or a ratio (`wait`, `timeout`, `rate`) keeps its name when the function's
//! docstring (for `__init__`, its class) states the unit on a line naming it, or the
//! function passes it to `sleep` (seconds): the silent case, where a call that was right
//! stays valid Python and only its meaning changed. It is a number when its default is
//! one, it is annotated or documented so (`wait (int): ...`), the function uses it as
//! one, or stores it in an attribute its class uses as one (`self.wait = wait`).
//!
//! The function reads the parameter in the new unit: where its old code scaled it
//! (`wait / 1000.0` for seconds) the scaling goes, where it compares it with a number
//! the number is converted (`percent > 100` → `fraction > 1`), a truth test or a type
//! check stays, elsewhere the read converts back (`delay / 1000`), in a closure too.
//! Its default is converted, and so is every value a call passes, by position or
//! keyword (`partial` too): a number literal folded (`5` → `5000`, `50` → `0.5`), a
//! scaling undone, anything else multiplied or divided. The docstring's lines about the
//! parameter state the new unit.
//!
//! No site for a nested function, a decorated one (but `staticmethod`, `classmethod`),
//! a dunder but `__init__` (called by its class's name; not when the class is
//! subclassed in the tree); when the parameter is rebound (a nested scope's binding
//! too), renamed and read in a nested scope, has a default that is not a number
//! (`None`, `False`), is never used as a number, or the function reads its own frame;
//! when the tree defines another function (or class) of the same name, uses the
//! function as a value, imports it under another name, or a call passes `*args` up to
//! the parameter's position or `**kwargs` without it. A file that neither defines nor
//! imports the name has only namesakes of it (a parameter `delay`), which do not count.

use std::collections::BTreeSet;
use std::ops::Range;

use rustpython_ast as ast;

use super::kind::Kind;
use super::naming::{self, occurrences, occurs};
use super::rename_local::{at_site, functions, is_unique, Function, InFunction, reads_own_frame};
use super::scale::{self, Edit, Named, Rescale, Unit};
use super::scale_calls::{call_edits, shape, spliced, Callable};
use super::callers::spelled;
use super::site::{Change, Contract, Site, Transform, Workspace};
use crate::python::walk::{owned_exprs, parameters, walk_stmts};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

pub(crate) struct ScaleParam;

impl Transform for ScaleParam {
    fn change(&self) -> Change {
        Change::Contract(Contract::Units)
    }

    fn description(&self) -> &'static str {
        "changes the unit of a numeric parameter (seconds and milliseconds, percent and fraction), converting the value at every call"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let mut sites = Vec::new();
        for module in workspace.modules {
            let all = functions(module);
            for function in all.iter().filter(|f| is_unique(&all, &f.qual) && shape(module, f).is_some()) {
                for (param, unit, names) in candidates(module, function) {
                    let site = |new: &String| Site {
                        kind: Kind::ScaleParam,
                        path: module.path.clone(),
                        symbol: format!("{}.{param}", function.qual),
                        lines: module.line_of(function.header_start)..module.line_of(function.span.end) + 1,
                        uses: BTreeSet::from([user_name(&function.qual)]),
                        target: Some(format!("{new}:{}", unit.conversion().0.name())),
                        tests: Vec::new(),
                    };
                    let found = names.iter().map(site).find(|s| self.apply(workspace, workspace.tree, s).is_some());
                    sites.extend(found);
                }
            }
        }
        sites.sort_by_key(|s| (s.path.clone(), s.lines.start, s.symbol.clone()));
        sites
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let (new, unit) = target(site)?;
        let power = unit.source().conversion().1;
        let named = Site { target: Some(new.to_string()), ..site.clone() };
        let (own, callable) = at_site(tree, &named, |at, old, new| {
            let callable = shape(at.module, at.function)?.with_index(positional_index(at.function.args, old));
            Some((own_edits(at, old, new, unit.source(), power)?, callable))
        })?;
        let (_, old) = site.symbol.rsplit_once('.')?;
        let per_file =
            |module: &PyModule, stmts: &[&ast::Stmt], callable: &Callable| CallWalk { module, callable, old, new, power }.edits(stmts);
        let mut files = call_edits(tree, &callable, &per_file)?;
        files.entry(site.path.clone()).or_default().extend(own);
        let mut out = tree.clone();
        for (path, edits) in files {
            let after = spliced(snapshot::text_of(tree, &path)?, edits)?;
            if !crate::python::parses(&after, &path) {
                return None;
            }
            out = snapshot::with_file(&out, &path, &after);
        }
        Some(out)
    }

    fn message(&self, site: &Site) -> String {
        let (function, old) = site.symbol.rsplit_once('.').unwrap_or(("", &site.symbol));
        let function = function.strip_suffix(".__init__").unwrap_or(function);
        let Some((new, unit)) = target(site) else { return format!("`{function}`: change the unit of `{old}`") };
        let before = match unit.source() {
            Unit::Seconds => "seconds",
            Unit::Milliseconds => "milliseconds",
            Unit::Percent => "a percent",
            Unit::Fraction => "a fraction",
        };
        if new == old {
            format!("`{function}`: take `{old}` {}, not {before}", unit.phrase())
        } else {
            format!("`{function}`: take `{new}` {} instead of `{old}`", unit.phrase())
        }
    }
}

/// A site's new name and new unit (its target is `new:unit`).
fn target(site: &Site) -> Option<(&str, Unit)> {
    let (new, unit) = site.target.as_deref()?.rsplit_once(':')?;
    Some((new, Unit::parse(unit)?))
}

/// How a feature's `uses` names the function: a module-level function by its name, a
/// method as `.name`, a constructor by its class.
pub(super) fn user_name(qual: &str) -> String {
    match qual.split_once('.') {
        None => qual.to_string(),
        Some((class, "__init__")) => class.to_string(),
        Some((_, method)) => format!(".{method}"),
    }
}

/// The parameters of `function` whose name says a unit, or says a quantity whose unit
/// its documentation states: (name, unit, candidate new names).
fn candidates(module: &PyModule, function: &Function) -> Vec<(String, Unit, Vec<String>)> {
    let own = &module.text[function.span.clone()];
    let mut out = Vec::new();
    for arg in positional_and_keyword(function.args) {
        let name = arg.arg.to_string();
        if matches!(name.as_str(), "self" | "cls") {
            continue;
        }
        match scale::named(&name) {
            Some(Named::Unit(unit, names)) => out.push((name, unit, names)),
            Some(Named::Neutral { duration }) => {
                let mut lines: Vec<&str> = own.lines().filter(|l| occurs(l, &name)).collect();
                if let Some(class) = class_text(module, function) {
                    lines.extend(class.lines().filter(|l| occurs(l, &name)));
                }
                let slept = duration && lines.iter().any(|l| l.contains(&format!("sleep({name})")));
                let unit = scale::stated(lines, duration).or(slept.then_some(Unit::Seconds));
                out.extend(unit.map(|unit| (name.clone(), unit, vec![name])));
            }
            None => {}
        }
    }
    out
}

/// The text of the class of an `__init__` (whose docstring or attributes may say what
/// its parameters are).
fn class_text<'m>(module: &'m PyModule, function: &Function) -> Option<&'m str> {
    let class = function.qual.strip_suffix(".__init__")?;
    module.suite.iter().find_map(|s| match s {
        ast::Stmt::ClassDef(c) if c.name.as_str() == class => Some(module.source(s)),
        _ => None,
    })
}

/// The parameters a call may pass by position or keyword, and the keyword-only ones.
fn positional_and_keyword(args: &ast::Arguments) -> impl Iterator<Item = &ast::Arg> {
    args.posonlyargs.iter().chain(&args.args).chain(&args.kwonlyargs).map(|a| &a.def)
}

/// The edits of the function's own module: its signature (rename, default), its reads
/// of the parameter, its docstring; `None` when the parameter may not be converted.
fn own_edits(at: &InFunction, old: &str, new: &str, unit: Unit, power: i32) -> Option<Vec<Edit>> {
    let (module, function, scope) = (at.module, at.function, &at.scope);
    let own = at.own();
    if scope.stores.contains(old) || scope.blocked.contains(old) || reads_own_frame(own) {
        return None;
    }
    // A closure reads the value where it needs it, converted there (`delay_time = delay /
    // 1000`), when no nested scope binds the name and the name stays.
    let mut found = occurrences(own, old).into_iter().map(|o| function.span.start + o);
    let closure = found.any(|o| scope.nested.iter().any(|r| r.contains(&o)));
    if closure && (new != old || !only_read_in(function.body, old)) {
        return None;
    }
    let param = parameters(function.args).into_iter().find(|a| a.arg.as_str() == old)?;
    let star = |a: &Option<Box<ast::Arg>>| a.as_ref().is_some_and(|a| a.arg.as_str() == old);
    if star(&function.args.vararg) || star(&function.args.kwarg) {
        return None;
    }
    let mut edits = Vec::new();
    let mut default = function.args.posonlyargs.iter().chain(&function.args.args).chain(&function.args.kwonlyargs);
    let default = default.find(|a| a.def.arg.as_str() == old).and_then(|a| a.default.as_deref());
    let documented = scope.docstrings.iter().any(|d| documented_number(&module.text[d.clone()], old));
    let mut numeric = default.is_some_and(scale::is_number)
        || annotated_number(param)
        || documented
        || scale::stored_as_number(module, function, old);
    if let Some(default) = default {
        edits.push((PyModule::span(default), scale::converted(module, default, power)?));
    }
    let is_param = |e: &ast::Expr| matches!(e, ast::Expr::Name(n) if n.id.as_str() == old);
    let renamed = |_: &ast::Expr| new.to_string();
    let mut reads = Rescale::new(module, &is_param, &renamed, power);
    reads.nested = closure;
    reads.block(function.body);
    numeric |= reads.numeric;
    if !numeric {
        return None;
    }
    let read_spans: Vec<Range<usize>> = reads.edits.iter().map(|(r, _)| r.clone()).collect();
    edits.extend(reads.edits);
    if new != old {
        let offsets = super::rename_param::plan(at, old, new)?;
        let outside = |o: &usize| !read_spans.iter().any(|r| r.contains(o));
        edits.extend(offsets.into_iter().filter(outside).map(|o| (o..o + old.len(), new.to_string())));
    }
    for doc in &scope.docstrings {
        let mut start = doc.start;
        for line in module.text[doc.clone()].split_inclusive('\n') {
            if occurs(line, old) {
                edits.extend(scale::restated(line, start, unit));
            }
            start += line.len();
        }
    }
    Some(edits)
}

/// Whether a function's nested scopes (functions, lambdas, classes, comprehensions) only
/// read `name` of the function's scope: none binds it (a parameter, an assignment, an
/// import, `global` or `nonlocal`, an exception's name).
fn only_read_in(body: &[ast::Stmt], name: &str) -> bool {
    let mut stmts = Vec::new();
    walk_stmts(body, &mut stmts);
    let param = |args: &ast::Arguments| parameters(args).iter().any(|a| a.arg.as_str() == name);
    stmts.into_iter().all(|stmt| {
        let binds = match stmt {
            ast::Stmt::FunctionDef(d) => d.name.as_str() == name || param(&d.args),
            ast::Stmt::AsyncFunctionDef(d) => d.name.as_str() == name || param(&d.args),
            ast::Stmt::ClassDef(c) => c.name.as_str() == name,
            ast::Stmt::Global(g) => g.names.iter().any(|n| n.as_str() == name),
            ast::Stmt::Nonlocal(n) => n.names.iter().any(|n| n.as_str() == name),
            ast::Stmt::Import(ast::StmtImport { names, .. }) | ast::Stmt::ImportFrom(ast::StmtImportFrom { names, .. }) => {
                names.iter().any(|a| a.asname.as_ref().unwrap_or(&a.name).as_str().split('.').next() == Some(name))
            }
            ast::Stmt::Try(t) => t.handlers.iter().any(|h| {
                let ast::ExceptHandler::ExceptHandler(h) = h;
                h.name.as_ref().is_some_and(|n| n.as_str() == name)
            }),
            _ => false,
        };
        !binds
            && owned_exprs(stmt).into_iter().all(|e| match e {
                ast::Expr::Name(n) => n.id.as_str() != name || n.ctx == ast::ExprContext::Load,
                ast::Expr::Lambda(l) => !param(&l.args),
                _ => true,
            })
    })
}

/// Whether a docstring documents parameter `name` as a number: `name (int): ...`,
/// `name (int|float, optional): ...` (Google), `name : float` (NumPy), `:type name: int`
/// or `:param int name:` (Sphinx). Every type it names must be a number's.
fn documented_number(doc: &str, name: &str) -> bool {
    doc.lines().map(str::trim).any(|line| {
        let sphinx = line.strip_prefix(":type ").and_then(|l| l.strip_prefix(name)).and_then(|l| l.strip_prefix(':'));
        let param = line.strip_prefix(":param ").and_then(|l| l.strip_suffix(':').or_else(|| l.split_once(':').map(|(a, _)| a)));
        let param = param.and_then(|p| p.strip_suffix(name)).filter(|t| t.ends_with(' ')).map(str::trim);
        let google = line.strip_prefix(name).and_then(|l| l.strip_prefix(" (")).and_then(|l| l.split_once(')')).map(|(t, _)| t);
        let numpy = line.strip_prefix(name).and_then(|l| l.strip_prefix(" : "));
        [sphinx, param, google, numpy].into_iter().flatten().any(number_type)
    })
}

/// Whether a documented type is a number's (`int`, `float`, `int|float, optional`).
fn number_type(text: &str) -> bool {
    let words: Vec<&str> = text
        .split(|c: char| c == '|' || c == ',' || c.is_whitespace())
        .filter(|w| !matches!(*w, "" | "optional" | "or" | "None"))
        .collect();
    !words.is_empty() && words.iter().all(|w| matches!(*w, "int" | "float" | "number" | "numbers.Number" | "Number"))
}

/// Whether a parameter is annotated `int` or `float`.
fn annotated_number(param: &ast::Arg) -> bool {
    matches!(param.annotation.as_deref(), Some(ast::Expr::Name(n)) if matches!(n.id.as_str(), "int" | "float"))
}

/// The index of parameter `name` among a definition's positional parameters.
fn positional_index(args: &ast::Arguments, name: &str) -> Option<usize> {
    args.posonlyargs.iter().chain(&args.args).position(|a| a.def.arg.as_str() == name)
}

/// The calls of one file.
struct CallWalk<'a> {
    module: &'a PyModule,
    callable: &'a Callable,
    old: &'a str,
    new: &'a str,
    power: i32,
}

impl CallWalk<'_> {
    /// The file's edits; `None` when a call cannot be followed.
    fn edits(&self, stmts: &[&ast::Stmt]) -> Option<Vec<Edit>> {
        let (callable, index) = (self.callable, self.callable.index);
        let mut edits = Vec::new();
        for expr in stmts.iter().flat_map(|s| owned_exprs(s)) {
            let ast::Expr::Call(call) = expr else { continue };
            if callable.is_callee(&call.func) {
                edits.extend(self.arguments(&call.args, &call.keywords, callable.shift(&call.func), index)?);
            } else if spelled(&call.func, "partial") && call.args.first().is_some_and(|f| callable.is_callee(f)) {
                let shift = callable.shift(&call.args[0]);
                edits.extend(self.arguments(&call.args[1..], &call.keywords, shift, index)?);
            }
        }
        Some(edits)
    }

    /// The edits converting the parameter's value among one call's arguments.
    fn arguments(&self, args: &[ast::Expr], keywords: &[ast::Keyword], shift: usize, index: Option<usize>) -> Option<Vec<Edit>> {
        let mut edits = Vec::new();
        let position = index.and_then(|i| i.checked_sub(shift));
        if let Some(position) = position {
            if args.iter().take(position + 1).any(|a| matches!(a, ast::Expr::Starred(_))) {
                return None;
            }
            if let Some(arg) = args.get(position) {
                edits.push((PyModule::span(arg), scale::converted(self.module, arg, self.power)?));
            }
        }
        let passed = position.is_some_and(|p| p < args.len());
        for keyword in keywords {
            match keyword.arg.as_deref() {
                Some(name) if name == self.old => {
                    edits.push((PyModule::span(&keyword.value), scale::converted(self.module, &keyword.value, self.power)?));
                    if self.new != self.old {
                        let at = PyModule::span(keyword).start;
                        naming::is_word_at(&self.module.text, at, self.old).then_some(())?;
                        edits.push((at..at + self.old.len(), self.new.to_string()));
                    }
                }
                None if !passed => return None,
                _ => {}
            }
        }
        Some(edits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docstrings_type_parameters_as_numbers() {
        assert!(documented_number("Args:\n    wait (int): Milliseconds to wait.", "wait"));
        assert!(documented_number("    delay (int|float, optional): Seconds.", "delay"));
        assert!(documented_number("delay : float\n    Seconds.", "delay"));
        assert!(documented_number(":type delay: int", "delay"));
        assert!(documented_number(":param float delay: seconds", "delay"));
        assert!(!documented_number("jitter (int|float|tuple): Random jitter.", "jitter"));
        assert!(!documented_number("max_wait (optional): Maximum time.", "max_wait"));
        assert!(!documented_number("wait (int): Milliseconds.", "max_wait"));
        assert!(!documented_number(":param delay: seconds", "delay"));
    }
}
