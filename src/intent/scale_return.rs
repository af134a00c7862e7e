//! `scale-return` (contract, units): a function or method of a source module that
//! returns a duration or a ratio returns it in the other unit of its pair ([`scale`]:
//! seconds ↔ milliseconds, percent ↔ fraction), and every call in the tree (sources and
//! tests) converts the result back where it is used.
//!
//! Which functions: a name that says its unit (`elapsed_ms`, `discount_percent`) is
//! renamed for the new one everywhere, as `rename` renames a module-level function; a
//! name that only says it is a duration or a ratio (`elapsed`, `progress`) keeps its name
//! when its docstring states the unit it returns (a line saying what it returns): the
//! silent case, where every call stays valid Python and only its meaning changed.
//!
//! Each `return` converts its value (a number literal folded, a scaling undone: `return
//! (end - start) * 1000` → `return end - start`); each call converts back where it is
//! used ([`scale::Rescale`]): a scaling the conversion undoes goes, the numbers it is
//! compared with are converted (`assert progress(1, 4) == 25` → `== 0.25`), elsewhere the
//! call is scaled back (`elapsed() / 1000`). The docstring's lines about what it returns
//! state the new unit.
//!
//! No site for what `scale-param` refuses of its function and calls (nested, decorated,
//! used as a value, a namesake, an import under another name), for a constructor, a
//! generator, a function with a bare `return` or one returning something that is not a
//! number (a constant, a tuple, a string), nor when a name that says its unit cannot be
//! renamed (a method, a new name already used).

use std::collections::BTreeSet;

use rustpython_ast as ast;

use super::kind::Kind;
use super::rename_local::{functions, is_unique, Function};
use super::scale::{self, Edit, Named, Rescale, Unit};
use super::scale_calls::{call_edits, shape, spliced, Binding, Callable};
use super::scale_param::user_name;
use super::site::{Change, Contract, Site, Transform, Workspace};
use crate::python::walk::{child_blocks, expr_children, is_docstring, stmt_exprs};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

pub(crate) struct ScaleReturn;

impl Transform for ScaleReturn {
    fn change(&self) -> Change {
        Change::Contract(Contract::Units)
    }

    fn description(&self) -> &'static str {
        "changes the unit a function returns (seconds and milliseconds, percent and fraction), converting the result back at every call"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let mut sites = Vec::new();
        for module in workspace.modules {
            let all = functions(module);
            for function in all.iter().filter(|f| is_unique(&all, &f.qual)) {
                let Some((unit, names)) = candidate(module, function) else { continue };
                let site = |new: &String| Site {
                    kind: Kind::ScaleReturn,
                    path: module.path.clone(),
                    symbol: function.qual.clone(),
                    lines: module.line_of(function.header_start)..module.line_of(function.span.end) + 1,
                    uses: BTreeSet::from([user_name(&function.qual)]),
                    target: Some(format!("{new}:{}", unit.conversion().0.name())),
                    tests: Vec::new(),
                };
                sites.extend(names.iter().map(site).find(|s| self.apply(workspace, workspace.tree, s).is_some()));
            }
        }
        sites.sort_by_key(|s| (s.path.clone(), s.lines.start, s.symbol.clone()));
        sites
    }

    fn apply(&self, workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let (new, unit) = target(site)?;
        let old = site.symbol.rsplit('.').next()?;
        let tree = if new == old {
            tree.clone()
        } else {
            let rename = Site { kind: Kind::Rename, symbol: old.to_string(), target: Some(new.to_string()), ..site.clone() };
            Kind::Rename.transform().apply(workspace, tree, &rename)?
        };
        let qual = match site.symbol.rsplit_once('.') {
            Some((class, _)) => format!("{class}.{new}"),
            None => new.to_string(),
        };
        scaled(&tree, &site.path, &qual, unit.source())
    }

    fn message(&self, site: &Site) -> String {
        let Some((new, unit)) = target(site) else { return format!("`{}`: change the unit it returns", site.symbol) };
        let old = site.symbol.rsplit('.').next().unwrap_or_default();
        let returns = |unit: Unit| match unit {
            Unit::Seconds => "seconds",
            Unit::Milliseconds => "milliseconds",
            Unit::Percent => "a percent",
            Unit::Fraction => "a fraction",
        };
        if new == old {
            format!("`{}`: return {}, not {}", site.symbol, returns(unit), returns(unit.source()))
        } else {
            format!("`{old}`: return {} instead of {}, as `{new}`", returns(unit), returns(unit.source()))
        }
    }
}

/// A site's new name and new unit (its target is `new:unit`).
fn target(site: &Site) -> Option<(&str, Unit)> {
    let (new, unit) = site.target.as_deref()?.rsplit_once(':')?;
    Some((new, Unit::parse(unit)?))
}

/// The unit `function` returns and its candidate new names, if its name says a
/// quantity whose unit the name or the docstring states.
fn candidate(module: &PyModule, function: &Function) -> Option<(Unit, Vec<String>)> {
    let callable = shape(module, function)?;
    let name = function.qual.rsplit('.').next()?;
    match scale::named(name)? {
        // A method's rename would need its overrides and attribute reads followed.
        Named::Unit(unit, names) => (callable.kind == Binding::Function).then_some((unit, names)),
        Named::Neutral { duration } => {
            let doc = function.body.first().filter(|s| is_docstring(s)).map_or("", |d| module.source(d));
            let unit = scale::stated(doc.lines().filter(|l| says_return(l)), duration)?;
            Some((unit, vec![name.to_string()]))
        }
    }
}

/// Whether a line of documentation is about what a function returns.
fn says_return(line: &str) -> bool {
    let lower = line.to_lowercase();
    lower.contains("return") || lower.contains("elapsed") || lower.contains("how long")
}

/// `tree` with the function `qual` of `path` returning its result converted from `unit`,
/// and every call converting it back.
fn scaled(tree: &Snapshot, path: &str, qual: &str, unit: Unit) -> Option<Snapshot> {
    let power = unit.conversion().1;
    let module = PyModule::parse(path, snapshot::text_of(tree, path)?).ok()?;
    let all = functions(&module);
    let function = all.iter().find(|f| f.qual == qual).filter(|_| is_unique(&all, qual))?;
    let callable = shape(&module, function)?;
    if callable.kind == Binding::Init {
        return None;
    }
    let own = returns(&module, function, unit, power)?;
    let per_file = |module: &PyModule, _: &[&ast::Stmt], callable: &Callable| {
        let is_call = |e: &ast::Expr| matches!(e, ast::Expr::Call(c) if callable.is_callee(&c.func));
        let text = |e: &ast::Expr| module.source(e).to_string();
        let mut calls = Rescale::new(module, &is_call, &text, power);
        calls.nested = true;
        calls.block(&module.suite);
        Some(calls.edits)
    };
    let mut files = call_edits(tree, &callable, &per_file)?;
    files.entry(path.to_string()).or_default().extend(own);
    let mut out = tree.clone();
    for (file, edits) in files {
        let after = spliced(snapshot::text_of(tree, &file)?, edits)?;
        if !crate::python::parses(&after, &file) {
            return None;
        }
        out = snapshot::with_file(&out, &file, &after);
    }
    Some(out)
}

/// The edits of the function's own returns and its docstring's lines about them; `None`
/// when it is a generator, returns nothing somewhere, or returns what is not a number.
fn returns(module: &PyModule, function: &Function, unit: Unit, power: i32) -> Option<Vec<Edit>> {
    let mut values = Vec::new();
    collect_returns(function.body, &mut values)?;
    if values.is_empty() {
        return None;
    }
    let mut edits = Vec::new();
    for value in values {
        let numeric = matches!(
            value,
            ast::Expr::BinOp(_)
                | ast::Expr::Name(_)
                | ast::Expr::Call(_)
                | ast::Expr::Attribute(_)
                | ast::Expr::Subscript(_)
                | ast::Expr::UnaryOp(_)
                | ast::Expr::IfExp(_)
        ) || scale::is_number(value);
        if !numeric || matches!(value, ast::Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not) || has_text(value) {
            return None;
        }
        edits.push((PyModule::span(value), scale::converted(module, value, power)?));
    }
    if let Some(doc) = function.body.first().filter(|s| is_docstring(s)) {
        let range = PyModule::span(doc);
        let mut start = range.start;
        for line in module.text[range].split_inclusive('\n') {
            if says_return(line) {
                edits.extend(scale::restated(line, start, unit));
            }
            start += line.len();
        }
    }
    Some(edits)
}

/// The values of a block's `return` statements (not nested functions'); `None` for a
/// bare `return` or a `yield`.
fn collect_returns<'a>(block: &'a [ast::Stmt], out: &mut Vec<&'a ast::Expr>) -> Option<()> {
    for stmt in block {
        if stmt_exprs(stmt).into_iter().any(yields) {
            return None;
        }
        match stmt {
            ast::Stmt::Return(r) => out.push(r.value.as_deref()?),
            ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_) => {}
            other => {
                for inner in child_blocks(other) {
                    collect_returns(inner, out)?;
                }
            }
        }
    }
    Some(())
}

/// Whether an expression holds a string (`"%"`, an f-string): it makes text, not a number.
fn has_text(expr: &ast::Expr) -> bool {
    let text = matches!(expr, ast::Expr::JoinedStr(_))
        || matches!(expr, ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_) | ast::Constant::Bytes(_)));
    text || expr_children(expr).into_iter().any(has_text)
}

/// Whether an expression yields (outside a nested lambda, which cannot).
fn yields(expr: &ast::Expr) -> bool {
    matches!(expr, ast::Expr::Yield(_) | ast::Expr::YieldFrom(_)) || expr_children(expr).into_iter().any(yields)
}
