//! `return-dict` (contract, return shape): a function that returns a tuple returns a
//! dict keyed by what its elements are called instead (`return start, end` →
//! `return {"start": start, "end": end}`), and every caller in the tree (sources and
//! tests) reads the keys. Unpacking a dict silently gives its keys, so code written
//! against the tuple breaks without an error where it unpacks.
//!
//! A site is a module-level function or a method (see `callers`) whose every `return`
//! returns a tuple display of two or more elements, the same number each time, none
//! starred; not a generator. The keys are the elements' names: a plain name or an
//! attribute of `self`/`cls` (`self.total` → `total`) at that position, the same on every
//! return that has one; a position no return names takes the name the docstring's
//! summary gives it when that spells the tuple (`"Return the (low, high) band"`). Keys
//! are distinct identifiers. A return annotation must be `tuple`/`Tuple[...]` (it
//! becomes `dict`, and an import only it used goes); the docstring's Returns section
//! says `dict` where it said `tuple`.
//!
//! Callers are adapted where the result is used in one of these ways, and the site is
//! refused when any call's result is used another way (returned, passed on, iterated,
//! `len`, compared to anything but a tuple display) or its calls cannot be told apart
//! from another thing's (`callers`):
//!
//! - unpacked by an assignment alone on its lines: `a, b = f(x)` keeps the dict and reads
//!   its keys (`result = f(x)` then `a, b = result["start"], result["end"]`, the first
//!   of `result` and `found` the caller's function does not mention); targets `_` are
//!   dropped, and a single target left reads its key off the call (`a = f(x)["start"]`);
//! - a call statement, its result unused: left as it is;
//! - indexed by an integer: `f(x)[0]` → `f(x)["start"]`;
//! - compared with `==`/`!=` or by `assertEqual`/`assertNotEqual` to a tuple display of
//!   the same length: the display becomes a dict of the same values;
//! - assigned to a name in a function that assigns it nowhere else and reads it only in
//!   those ways (`found = f(x)` then `found[0]`, `a, b = found`, `found == (1, 2)`).
//!
//! Every key and value written at a call comes from the call site or the function's own
//! definition.

use std::collections::{BTreeMap, BTreeSet};

use rustpython_ast as ast;

use super::callers::{self, calls_of, fresh_name, quote_of, rewritten, Caller, Edit, Function};
use super::kind::Kind;
use super::refs;
use super::site::{Change, Contract, Site, Transform, Workspace};
use crate::python::walk::{is_docstring, owned_exprs, parameters};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

pub(crate) struct ReturnDict;

/// The names a holder of the dict may take at a caller, in order of preference.
const HOLDERS: &[&str] = &["result", "found"];

/// Assertions comparing two values for (in)equality.
const EQUALITY_ASSERTIONS: &[&str] = &["assertEqual", "assertEquals", "assertNotEqual", "assertNotEquals"];

impl Transform for ReturnDict {
    fn change(&self) -> Change {
        Change::Contract(Contract::ReturnShape)
    }

    fn description(&self) -> &'static str {
        "makes a function that returns a tuple return a dict keyed by the elements' names, with every caller reading the keys"
    }

    fn sites(&self, workspace: &Workspace) -> Vec<Site> {
        let mut sites = Vec::new();
        for module in workspace.modules {
            for function in callers::functions(module) {
                let Some(keys) = keys(&function) else { continue };
                sites.push(function.site(Kind::ReturnDict, module, Some(keys.join(","))));
            }
        }
        // A site whose callers cannot all be adapted never applies.
        sites.into_iter().filter(|site| self.apply(workspace, workspace.tree, site).is_some()).collect()
    }

    fn apply(&self, _workspace: &Workspace, tree: &Snapshot, site: &Site) -> Option<Snapshot> {
        let module = PyModule::parse(&site.path, snapshot::text_of(tree, &site.path)?).ok()?;
        let function = callers::function(&module, &site.symbol)?;
        let keys = keys(&function)?;
        let mut edits: BTreeMap<String, Vec<Edit>> = BTreeMap::new();
        edits.insert(site.path.clone(), definition_edits(&module, &function, &keys)?);
        for caller in calls_of(tree, &function.def.name, function.class.is_some())? {
            let at = caller_edits(&caller, &keys)?;
            edits.entry(caller.module.path.clone()).or_default().extend(at);
        }
        callers::pruned(tree, rewritten(tree, edits)?, &site.path)
    }

    fn message(&self, site: &Site) -> String {
        let keys: Vec<String> = site.target.as_deref().unwrap_or_default().split(',').map(|k| format!("`{k}`")).collect();
        let listed = match keys.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
            _ => keys.join(""),
        };
        format!("`{}`: return a dict of {listed}", site.symbol)
    }
}

/// The keys of the dict the function would return, by tuple position; `None` when it is
/// no site (see the module header).
fn keys(function: &Function) -> Option<Vec<String>> {
    let own = function.own_statements();
    if own.iter().flat_map(|s| owned_exprs(s)).any(|e| matches!(e, ast::Expr::Yield(_) | ast::Expr::YieldFrom(_))) {
        return None;
    }
    let tuples = returned_tuples(&own)?;
    let width = tuples.first()?.len();
    if width < 2 || tuples.iter().any(|t| t.len() != width) {
        return None;
    }
    let mut keys: Vec<Option<String>> = vec![None; width];
    for tuple in &tuples {
        for (slot, element) in keys.iter_mut().zip(tuple.iter()) {
            match (element_name(element), slot.as_ref()) {
                (Some(name), Some(key)) if name != *key => return None,
                (Some(name), None) => *slot = Some(name.to_string()),
                _ => {}
            }
        }
    }
    if keys.iter().any(Option::is_none) {
        let documented = documented_tuple(function.def, width)?;
        for (slot, name) in keys.iter_mut().zip(documented) {
            if slot.as_ref().is_some_and(|k| *k != name) {
                return None;
            }
            *slot = Some(name);
        }
    }
    let keys: Vec<String> = keys.into_iter().collect::<Option<_>>()?;
    let distinct: BTreeSet<&String> = keys.iter().collect();
    let annotation_ok = function.def.returns.as_deref().is_none_or(is_tuple_annotation);
    (distinct.len() == keys.len() && keys.iter().all(|k| refs::is_identifier(k)) && annotation_ok).then_some(keys)
}

/// The elements of every tuple the function's own `return`s return; `None` when one
/// returns something else, a starred element, or nothing.
fn returned_tuples<'a>(own: &[&'a ast::Stmt]) -> Option<Vec<&'a [ast::Expr]>> {
    let mut out = Vec::new();
    for stmt in own {
        let ast::Stmt::Return(ret) = stmt else { continue };
        let Some(ast::Expr::Tuple(tuple)) = ret.value.as_deref() else { return None };
        if tuple.elts.iter().any(|e| matches!(e, ast::Expr::Starred(_))) {
            return None;
        }
        out.push(tuple.elts.as_slice());
    }
    (!out.is_empty()).then_some(out)
}

/// The key an element names: a plain name, or an attribute of `self`/`cls`.
fn element_name(expr: &ast::Expr) -> Option<&str> {
    match expr {
        ast::Expr::Name(n) => Some(n.id.as_str()),
        ast::Expr::Attribute(a) if matches!(a.value.as_ref(), ast::Expr::Name(n) if matches!(n.id.as_str(), "self" | "cls")) => {
            Some(a.attr.as_str())
        }
        _ => None,
    }
}

/// The names the docstring's summary gives the tuple, when it spells one of `width`
/// names in parentheses: `"Return the (low, high) band"` → `low`, `high`.
fn documented_tuple(def: &ast::StmtFunctionDef, width: usize) -> Option<Vec<String>> {
    let doc = docstring(def)?;
    let summary = doc.trim().split("\n\n").next()?;
    let mut rest = summary;
    while let Some(open) = rest.find('(') {
        let close = open + rest[open..].find(')')?;
        let names: Vec<String> = rest[open + 1..close].split(',').map(|n| n.trim().to_string()).collect();
        if names.len() == width && names.iter().all(|n| refs::is_identifier(n)) {
            return Some(names);
        }
        rest = &rest[close..];
    }
    None
}

/// The function's docstring, if it has one.
fn docstring(def: &ast::StmtFunctionDef) -> Option<&str> {
    let ast::Stmt::Expr(expr) = def.body.first()? else { return None };
    let ast::Expr::Constant(constant) = expr.value.as_ref() else { return None };
    match &constant.value {
        ast::Constant::Str(doc) => Some(doc.as_str()),
        _ => None,
    }
}

/// Whether a return annotation says a tuple: `tuple`, `Tuple`, `tuple[...]`,
/// `typing.Tuple[...]`.
fn is_tuple_annotation(expr: &ast::Expr) -> bool {
    let head = match expr {
        ast::Expr::Subscript(s) => s.value.as_ref(),
        other => other,
    };
    matches!(refs::dotted(head).as_deref(), Some("tuple" | "Tuple" | "typing.Tuple"))
}

/// The function's own edits: each return's tuple becomes a dict display, the return
/// annotation `dict`, and the docstring's Returns section says `dict` for `tuple`.
fn definition_edits(module: &PyModule, function: &Function, keys: &[String]) -> Option<Vec<Edit>> {
    let quote = quote_of(&module.text);
    let mut edits = Vec::new();
    for stmt in function.own_statements() {
        let ast::Stmt::Return(ret) = stmt else { continue };
        let Some(ast::Expr::Tuple(tuple)) = ret.value.as_deref() else { return None };
        let values: Vec<&str> = tuple.elts.iter().map(|e| module.source(e)).collect();
        edits.push(Edit::new(PyModule::span(tuple), display(keys, &values, quote)));
    }
    if let Some(returns) = function.def.returns.as_deref() {
        edits.push(Edit::new(PyModule::span(returns), "dict"));
    }
    if let Some(doc) = function.def.body.first().filter(|s| is_docstring(s)) {
        edits.extend(returns_section(module, PyModule::span(doc)));
    }
    Some(edits)
}

/// A dict display of `keys` to `values` (source texts), keys quoted with `quote`.
fn display(keys: &[String], values: &[&str], quote: char) -> String {
    let pairs: Vec<String> = keys.iter().zip(values).map(|(k, v)| format!("{quote}{k}{quote}: {v}")).collect();
    format!("{{{}}}", pairs.join(", "))
}

/// The edits saying `dict` for `tuple` (or `Tuple[...]`) in a docstring's Returns
/// section (Google's `Returns:`, numpydoc's `Returns` over dashes) and its `:rtype:`
/// and `:returns:` fields.
fn returns_section(module: &PyModule, span: std::ops::Range<usize>) -> Vec<Edit> {
    let text = &module.text[span.clone()];
    let mut edits = Vec::new();
    let mut offset = span.start;
    let mut in_section = false;
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim();
        let header = matches!(trimmed, "Returns:" | "Return:")
            || (matches!(trimmed, "Returns" | "Return") && lines.get(i + 1).is_some_and(|l| l.trim().starts_with("---")));
        let field = trimmed.starts_with(":rtype:") || trimmed.starts_with(":returns:") || trimmed.starts_with(":return:");
        if header {
            in_section = true;
        } else if in_section && (trimmed.is_empty() || (trimmed.ends_with(':') && !trimmed.contains(' '))) {
            in_section = false;
        }
        if in_section || field {
            edits.extend(tuple_words(line).into_iter().map(|r| Edit::new(offset + r.start..offset + r.end, "dict")));
        }
        offset += line.len();
    }
    edits
}

/// The ranges of the words `tuple`/`Tuple` in a line, a bracket group after one included.
fn tuple_words(line: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    for word in ["tuple", "Tuple"] {
        for at in super::naming::occurrences(line, word) {
            let mut end = at + word.len();
            if line[end..].starts_with('[') {
                let mut depth = 0;
                for (i, c) in line[end..].char_indices() {
                    depth += match c {
                        '[' => 1,
                        ']' => -1,
                        _ => 0,
                    };
                    if depth == 0 {
                        end += i + 1;
                        break;
                    }
                }
            }
            out.push(at..end);
        }
    }
    out
}

/// A name a call's result is kept in, read only in ways that can be adapted.
struct Holder {
    name: String,
    /// The span of the call assigned to it.
    call: (usize, usize),
    /// The spans of its reads in the function.
    reads: BTreeSet<(usize, usize)>,
}

/// The edits adapting one file's calls to the dict; `None` when a result is used in a
/// way that cannot be adapted.
fn caller_edits(caller: &Caller, keys: &[String]) -> Option<Vec<Edit>> {
    let module = &caller.module;
    let quote = quote_of(&module.text);
    let holders = holders(caller);
    let reads: BTreeSet<(usize, usize)> = holders.iter().flat_map(|h| h.reads.iter().copied()).collect();
    let is_subject = |e: &ast::Expr| {
        let span = PyModule::span(e);
        caller.is_call(e) || (matches!(e, ast::Expr::Name(_)) && reads.contains(&(span.start, span.end)))
    };
    let key = |i: usize| format!("{quote}{}{quote}", keys[i]);
    let mut handled: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut edits = Vec::new();
    for stmt in refs::statements(&module.suite) {
        match stmt {
            ast::Stmt::Assign(assign) if assign.targets.len() == 1 && is_subject(&assign.value) => {
                let target = &assign.targets[0];
                if let Some(at) = unpacked(module, stmt, target, &assign.value, caller.is_call(&assign.value), keys, quote) {
                    edits.extend(at);
                    handled.insert(span_of(&assign.value));
                }
            }
            ast::Stmt::Expr(expr) if caller.is_call(&expr.value) => {
                handled.insert(span_of(&expr.value));
            }
            _ => {}
        }
        for expr in owned_exprs(stmt) {
            match expr {
                ast::Expr::Subscript(sub) if is_subject(&sub.value) => {
                    if let Some(i) = index(&sub.slice, keys.len()) {
                        edits.push(Edit::new(PyModule::span(sub.slice.as_ref()), key(i)));
                        handled.insert(span_of(&sub.value));
                    }
                }
                ast::Expr::Compare(cmp) if cmp.comparators.len() == 1 && matches!(cmp.ops[0], ast::CmpOp::Eq | ast::CmpOp::NotEq) => {
                    let pair = [cmp.left.as_ref(), &cmp.comparators[0]];
                    if let Some((subject, edit)) = compared(module, pair, &is_subject, keys, quote) {
                        edits.push(edit);
                        handled.insert(subject);
                    }
                }
                ast::Expr::Call(call) if asserts_equality(&call.func) && call.args.len() >= 2 => {
                    let pair = [&call.args[0], &call.args[1]];
                    if let Some((subject, edit)) = compared(module, pair, &is_subject, keys, quote) {
                        edits.push(edit);
                        handled.insert(subject);
                    }
                }
                _ => {}
            }
        }
    }
    // A call kept in a holder is adapted when every read of the holder is.
    for holder in &holders {
        if holder.reads.iter().all(|r| handled.contains(r)) {
            handled.insert(holder.call);
        }
    }
    caller.calls.iter().all(|c| handled.contains(c)).then_some(edits)
}

fn span_of(expr: &ast::Expr) -> (usize, usize) {
    let span = PyModule::span(expr);
    (span.start, span.end)
}

/// Whether a callee is `self.assertEqual` or a like assertion.
fn asserts_equality(func: &ast::Expr) -> bool {
    matches!(func, ast::Expr::Attribute(a) if EQUALITY_ASSERTIONS.contains(&a.attr.as_str()))
}

/// The position an integer subscript reads among `width` (negative ones from the end).
fn index(slice: &ast::Expr, width: usize) -> Option<usize> {
    let int = |e: &ast::Expr| match e {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Int(i) => i.to_string().parse::<i64>().ok(),
            _ => None,
        },
        _ => None,
    };
    let value = match slice {
        ast::Expr::UnaryOp(u) if u.op == ast::UnaryOp::USub => -int(&u.operand)?,
        other => int(other)?,
    };
    let at = if value < 0 { width as i64 + value } else { value };
    usize::try_from(at).ok().filter(|&i| i < width)
}

/// When one of `pair` is a subject and the other a tuple display of the keys' width: the
/// subject's span and the edit making the display a dict.
fn compared(
    module: &PyModule,
    pair: [&ast::Expr; 2],
    is_subject: &impl Fn(&ast::Expr) -> bool,
    keys: &[String],
    quote: char,
) -> Option<((usize, usize), Edit)> {
    let [a, b] = pair;
    let (subject, other) = if is_subject(a) { (a, b) } else if is_subject(b) { (b, a) } else { return None };
    let ast::Expr::Tuple(tuple) = other else { return None };
    if tuple.elts.len() != keys.len() || tuple.elts.iter().any(|e| matches!(e, ast::Expr::Starred(_))) {
        return None;
    }
    let values: Vec<&str> = tuple.elts.iter().map(|e| module.source(e)).collect();
    Some((span_of(subject), Edit::new(PyModule::span(other), display(keys, &values, quote))))
}

/// The edits of an assignment unpacking a subject (`a, b = f(x)` or `a, b = found`) into
/// reads of the keys; `None` when the target is no flat tuple of the keys' width or the
/// statement shares its lines.
fn unpacked(
    module: &PyModule,
    stmt: &ast::Stmt,
    target: &ast::Expr,
    value: &ast::Expr,
    is_call: bool,
    keys: &[String],
    quote: char,
) -> Option<Vec<Edit>> {
    let elements = match target {
        ast::Expr::Tuple(t) => &t.elts,
        ast::Expr::List(l) => &l.elts,
        _ => return None,
    };
    if elements.len() != keys.len() || elements.iter().any(|e| matches!(e, ast::Expr::Starred(_) | ast::Expr::Tuple(_) | ast::Expr::List(_))) {
        return None;
    }
    let lines = module.whole_lines(stmt)?;
    let kept: Vec<(usize, &str)> = elements
        .iter()
        .enumerate()
        .filter(|(_, e)| !matches!(e, ast::Expr::Name(n) if n.id.as_str() == "_"))
        .map(|(i, e)| (i, module.source(e)))
        .collect();
    let (target_span, value_span) = (PyModule::span(target), PyModule::span(value));
    let read = |holder: &str, i: usize| format!("{holder}[{quote}{}{quote}]", keys[i]);
    let names: Vec<&str> = kept.iter().map(|(_, t)| *t).collect();
    if !is_call {
        // A holder already: read its keys in place.
        let holder = module.source(value);
        let reads: Vec<String> = kept.iter().map(|(i, _)| read(holder, *i)).collect();
        if kept.is_empty() {
            return None;
        }
        return Some(vec![Edit::new(target_span, names.join(", ")), Edit::new(value_span, reads.join(", "))]);
    }
    match kept.as_slice() {
        [] => Some(vec![Edit::new(target_span.start..value_span.start, "")]),
        [(i, text)] => Some(vec![
            Edit::new(target_span, *text),
            Edit::new(value_span.end..value_span.end, format!("[{quote}{}{quote}]", keys[*i])),
        ]),
        _ => {
            let holder = fresh_name(module, target_span.start, HOLDERS)?;
            let reads: Vec<String> = kept.iter().map(|(i, _)| read(holder, *i)).collect();
            let indent = module.indent_at(target_span.start);
            let newline = if module.text[..lines.end].ends_with('\n') { "" } else { "\n" };
            let line = format!("{newline}{indent}{} = {}\n", names.join(", "), reads.join(", "));
            Some(vec![Edit::new(target_span, holder), Edit::new(lines.end..lines.end, line)])
        }
    }
}

/// The names a call's result is assigned to (`found = f(x)`) in a function that assigns
/// the name nowhere else (no other assignment, parameter or declaration), with every
/// read of the name there.
fn holders(caller: &Caller) -> Vec<Holder> {
    let module = &caller.module;
    let mut out = Vec::new();
    for stmt in refs::statements(&module.suite) {
        let ast::Stmt::Assign(assign) = stmt else { continue };
        let (Some(ast::Expr::Name(target)), true) = (assign.targets.first(), assign.targets.len() == 1) else { continue };
        if !caller.is_call(&assign.value) {
            continue;
        }
        let scope = callers::scope_at(module, PyModule::span(stmt).start);
        if scope == (0..module.text.len()) {
            continue;
        }
        let name = target.id.as_str();
        let in_scope: Vec<&ast::Stmt> = refs::statements(&module.suite)
            .into_iter()
            .filter(|s| scope.contains(&PyModule::span(*s).start))
            .collect();
        let declared = in_scope.iter().any(|s| match s {
            ast::Stmt::FunctionDef(d) => parameters(&d.args).iter().any(|p| p.arg.as_str() == name),
            ast::Stmt::AsyncFunctionDef(d) => parameters(&d.args).iter().any(|p| p.arg.as_str() == name),
            ast::Stmt::Global(g) => g.names.iter().any(|n| n.as_str() == name),
            ast::Stmt::Nonlocal(n) => n.names.iter().any(|n| n.as_str() == name),
            _ => false,
        });
        let names: Vec<&ast::ExprName> = in_scope
            .iter()
            .flat_map(|s| owned_exprs(s))
            .filter_map(|e| match e {
                ast::Expr::Name(n) if n.id.as_str() == name => Some(n),
                _ => None,
            })
            .collect();
        let stores = names.iter().filter(|n| n.ctx != ast::ExprContext::Load).count();
        if declared || stores != 1 {
            continue;
        }
        let reads =
            names.iter().filter(|n| n.ctx == ast::ExprContext::Load).map(|n| PyModule::span(*n)).map(|r| (r.start, r.end)).collect();
        out.push(Holder { name: name.to_string(), call: span_of(&assign.value), reads });
    }
    out.retain(|h| !h.name.is_empty());
    out
}
