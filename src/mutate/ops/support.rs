//! Shared helpers for the operators in this folder: a complete walk over the
//! expressions a statement owns (by reference, comprehensions, keywords, `with` items,
//! defaults and match patterns included), block geometry, negating a condition,
//! expression precedence, and the final "does it still parse" filter.

use std::ops::Range;

use rustpython_ast::{self as ast, Ranged};

use crate::mutate::python::{child_blocks, parses, StmtSite};
use crate::mutate::{mutation_at, Mutation, Operator, PyModule};

/// The expressions a statement evaluates itself (not those of its nested statements),
/// top level only. For a `def`/`class` these are the header's: decorators, defaults,
/// annotations, bases and keywords.
pub(crate) fn stmt_exprs(stmt: &ast::Stmt) -> Vec<&ast::Expr> {
    let mut out: Vec<&ast::Expr> = Vec::new();
    match stmt {
        ast::Stmt::FunctionDef(d) => {
            out.extend(d.decorator_list.iter());
            arguments_exprs(&d.args, &mut out);
            out.extend(d.returns.as_deref());
        }
        ast::Stmt::AsyncFunctionDef(d) => {
            out.extend(d.decorator_list.iter());
            arguments_exprs(&d.args, &mut out);
            out.extend(d.returns.as_deref());
        }
        ast::Stmt::ClassDef(c) => {
            out.extend(c.decorator_list.iter());
            out.extend(c.bases.iter());
            out.extend(c.keywords.iter().map(|k| &k.value));
        }
        ast::Stmt::Return(s) => out.extend(s.value.as_deref()),
        ast::Stmt::Delete(s) => out.extend(s.targets.iter()),
        ast::Stmt::Assign(s) => {
            out.extend(s.targets.iter());
            out.push(&s.value);
        }
        ast::Stmt::TypeAlias(s) => {
            out.push(&s.name);
            out.push(&s.value);
        }
        ast::Stmt::AugAssign(s) => {
            out.push(&s.target);
            out.push(&s.value);
        }
        ast::Stmt::AnnAssign(s) => {
            out.push(&s.target);
            out.push(&s.annotation);
            out.extend(s.value.as_deref());
        }
        ast::Stmt::For(s) => {
            out.push(&s.target);
            out.push(&s.iter);
        }
        ast::Stmt::AsyncFor(s) => {
            out.push(&s.target);
            out.push(&s.iter);
        }
        ast::Stmt::While(s) => out.push(&s.test),
        ast::Stmt::If(s) => out.push(&s.test),
        ast::Stmt::With(s) => with_items(&s.items, &mut out),
        ast::Stmt::AsyncWith(s) => with_items(&s.items, &mut out),
        ast::Stmt::Match(s) => {
            out.push(&s.subject);
            for case in &s.cases {
                pattern_exprs(&case.pattern, &mut out);
                out.extend(case.guard.as_deref());
            }
        }
        ast::Stmt::Raise(s) => {
            out.extend(s.exc.as_deref());
            out.extend(s.cause.as_deref());
        }
        ast::Stmt::Try(s) => handler_types(&s.handlers, &mut out),
        ast::Stmt::TryStar(s) => handler_types(&s.handlers, &mut out),
        ast::Stmt::Assert(s) => {
            out.push(&s.test);
            out.extend(s.msg.as_deref());
        }
        ast::Stmt::Expr(s) => out.push(&s.value),
        ast::Stmt::Import(_)
        | ast::Stmt::ImportFrom(_)
        | ast::Stmt::Global(_)
        | ast::Stmt::Nonlocal(_)
        | ast::Stmt::Pass(_)
        | ast::Stmt::Break(_)
        | ast::Stmt::Continue(_) => {}
    }
    out
}

fn with_items<'a>(items: &'a [ast::WithItem], out: &mut Vec<&'a ast::Expr>) {
    for item in items {
        out.push(&item.context_expr);
        out.extend(item.optional_vars.as_deref());
    }
}

fn handler_types<'a>(handlers: &'a [ast::ExceptHandler], out: &mut Vec<&'a ast::Expr>) {
    for handler in handlers {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        out.extend(h.type_.as_deref());
    }
}

/// Default values and annotations of a parameter list.
pub(crate) fn arguments_exprs<'a>(args: &'a ast::Arguments, out: &mut Vec<&'a ast::Expr>) {
    for arg in args.posonlyargs.iter().chain(&args.args) {
        out.extend(arg.def.annotation.as_deref());
        out.extend(arg.default.as_deref());
    }
    if let Some(vararg) = &args.vararg {
        out.extend(vararg.annotation.as_deref());
    }
    for arg in &args.kwonlyargs {
        out.extend(arg.def.annotation.as_deref());
        out.extend(arg.default.as_deref());
    }
    if let Some(kwarg) = &args.kwarg {
        out.extend(kwarg.annotation.as_deref());
    }
}

/// Every parameter of a parameter list, in source order.
pub(crate) fn parameters(args: &ast::Arguments) -> Vec<&ast::Arg> {
    let mut out: Vec<&ast::Arg> = args.posonlyargs.iter().chain(&args.args).map(|a| &a.def).collect();
    out.extend(args.vararg.as_deref());
    out.extend(args.kwonlyargs.iter().map(|a| &a.def));
    out.extend(args.kwarg.as_deref());
    out
}

fn pattern_exprs<'a>(pattern: &'a ast::Pattern, out: &mut Vec<&'a ast::Expr>) {
    match pattern {
        ast::Pattern::MatchValue(p) => out.push(&p.value),
        ast::Pattern::MatchSingleton(_) | ast::Pattern::MatchStar(_) => {}
        ast::Pattern::MatchSequence(p) => p.patterns.iter().for_each(|p| pattern_exprs(p, out)),
        ast::Pattern::MatchMapping(p) => {
            out.extend(p.keys.iter());
            p.patterns.iter().for_each(|p| pattern_exprs(p, out));
        }
        ast::Pattern::MatchClass(p) => {
            out.push(&p.cls);
            p.patterns.iter().chain(&p.kwd_patterns).for_each(|p| pattern_exprs(p, out));
        }
        ast::Pattern::MatchAs(p) => {
            if let Some(inner) = &p.pattern {
                pattern_exprs(inner, out);
            }
        }
        ast::Pattern::MatchOr(p) => p.patterns.iter().for_each(|p| pattern_exprs(p, out)),
    }
}

/// The names a match pattern captures.
pub(crate) fn pattern_names<'a>(pattern: &'a ast::Pattern, out: &mut Vec<&'a str>) {
    match pattern {
        ast::Pattern::MatchValue(_) | ast::Pattern::MatchSingleton(_) => {}
        ast::Pattern::MatchSequence(p) => p.patterns.iter().for_each(|p| pattern_names(p, out)),
        ast::Pattern::MatchMapping(p) => {
            p.patterns.iter().for_each(|p| pattern_names(p, out));
            out.extend(p.rest.as_deref());
        }
        ast::Pattern::MatchClass(p) => p.patterns.iter().chain(&p.kwd_patterns).for_each(|p| pattern_names(p, out)),
        ast::Pattern::MatchStar(p) => out.extend(p.name.as_deref()),
        ast::Pattern::MatchAs(p) => {
            if let Some(inner) = &p.pattern {
                pattern_names(inner, out);
            }
            out.extend(p.name.as_deref());
        }
        ast::Pattern::MatchOr(p) => p.patterns.iter().for_each(|p| pattern_names(p, out)),
    }
}

/// The direct sub-expressions of an expression.
pub(crate) fn expr_children(expr: &ast::Expr) -> Vec<&ast::Expr> {
    let mut out: Vec<&ast::Expr> = Vec::new();
    match expr {
        ast::Expr::BoolOp(e) => out.extend(e.values.iter()),
        ast::Expr::NamedExpr(e) => {
            out.push(&e.target);
            out.push(&e.value);
        }
        ast::Expr::BinOp(e) => {
            out.push(&e.left);
            out.push(&e.right);
        }
        ast::Expr::UnaryOp(e) => out.push(&e.operand),
        ast::Expr::Lambda(e) => {
            arguments_exprs(&e.args, &mut out);
            out.push(&e.body);
        }
        ast::Expr::IfExp(e) => {
            out.push(&e.test);
            out.push(&e.body);
            out.push(&e.orelse);
        }
        ast::Expr::Dict(e) => {
            for (key, value) in e.keys.iter().zip(&e.values) {
                out.extend(key.as_ref());
                out.push(value);
            }
        }
        ast::Expr::Set(e) => out.extend(e.elts.iter()),
        ast::Expr::ListComp(e) => {
            out.push(&e.elt);
            generators(&e.generators, &mut out);
        }
        ast::Expr::SetComp(e) => {
            out.push(&e.elt);
            generators(&e.generators, &mut out);
        }
        ast::Expr::DictComp(e) => {
            out.push(&e.key);
            out.push(&e.value);
            generators(&e.generators, &mut out);
        }
        ast::Expr::GeneratorExp(e) => {
            out.push(&e.elt);
            generators(&e.generators, &mut out);
        }
        ast::Expr::Await(e) => out.push(&e.value),
        ast::Expr::Yield(e) => out.extend(e.value.as_deref()),
        ast::Expr::YieldFrom(e) => out.push(&e.value),
        ast::Expr::Compare(e) => {
            out.push(&e.left);
            out.extend(e.comparators.iter());
        }
        ast::Expr::Call(e) => {
            out.push(&e.func);
            out.extend(e.args.iter());
            out.extend(e.keywords.iter().map(|k| &k.value));
        }
        ast::Expr::FormattedValue(e) => {
            out.push(&e.value);
            out.extend(e.format_spec.as_deref());
        }
        ast::Expr::JoinedStr(e) => out.extend(e.values.iter()),
        ast::Expr::Constant(_) | ast::Expr::Name(_) => {}
        ast::Expr::Attribute(e) => out.push(&e.value),
        ast::Expr::Subscript(e) => {
            out.push(&e.value);
            out.push(&e.slice);
        }
        ast::Expr::Starred(e) => out.push(&e.value),
        ast::Expr::List(e) => out.extend(e.elts.iter()),
        ast::Expr::Tuple(e) => out.extend(e.elts.iter()),
        ast::Expr::Slice(e) => {
            out.extend(e.lower.as_deref());
            out.extend(e.upper.as_deref());
            out.extend(e.step.as_deref());
        }
    }
    out
}

fn generators<'a>(generators: &'a [ast::Comprehension], out: &mut Vec<&'a ast::Expr>) {
    for generator in generators {
        out.push(&generator.target);
        out.push(&generator.iter);
        out.extend(generator.ifs.iter());
    }
}

/// Every expression a statement owns (its nested statements' excluded), sub-expressions
/// included, sorted by start (outer before inner).
pub(crate) fn all_exprs(stmt: &ast::Stmt) -> Vec<&ast::Expr> {
    let mut out = Vec::new();
    let mut stack: Vec<&ast::Expr> = stmt_exprs(stmt);
    while let Some(expr) = stack.pop() {
        out.push(expr);
        stack.extend(expr_children(expr));
    }
    out.sort_by_key(|e| (e.range().start(), std::cmp::Reverse(e.range().end())));
    out
}

/// Every statement in a block, nested ones (function and class bodies too) included.
pub(crate) fn walk_stmts<'a>(block: &'a [ast::Stmt], out: &mut Vec<&'a ast::Stmt>) {
    for stmt in block {
        out.push(stmt);
        match stmt {
            ast::Stmt::FunctionDef(d) => walk_stmts(&d.body, out),
            ast::Stmt::AsyncFunctionDef(d) => walk_stmts(&d.body, out),
            ast::Stmt::ClassDef(c) => walk_stmts(&c.body, out),
            other => child_blocks(other).into_iter().for_each(|b| walk_stmts(b, out)),
        }
    }
}

/// The whole lines a block occupies: from its first statement's line to the end of its
/// last statement's line.
pub(crate) fn block_lines(module: &PyModule, block: &[ast::Stmt]) -> Option<Range<usize>> {
    let first = module.whole_lines(block.first()?)?;
    let last = module.whole_lines(block.last()?)?;
    Some(first.start..last.end)
}

/// Whether an `if` statement is the `elif` branch of another.
pub(crate) fn is_elif(module: &PyModule, stmt: &ast::Stmt) -> bool {
    matches!(stmt, ast::Stmt::If(_)) && module.source(stmt).starts_with("elif")
}

/// `a` and `b` (each whole lines, `a` first in the file) exchanged around `middle`,
/// keeping a final line without newline last.
pub(crate) fn swapped(a: &str, middle: &str, b: &str) -> String {
    if b.ends_with('\n') || !a.ends_with('\n') {
        format!("{b}{middle}{a}")
    } else {
        format!("{b}\n{middle}{}", &a[..a.len() - 1])
    }
}

/// The qualified name of the function a `def` site defines: the function recorded for
/// the first statement of its body, which `statements()` lists right after it.
pub(crate) fn defined_function(sites: &[StmtSite<'_>], index: usize) -> Option<String> {
    sites.get(index + 1).and_then(|s| s.function.clone())
}

/// Source of an expression's negation: `not x` → `x`, a plain name, call, attribute or
/// subscript `c` → `not c`, anything else → `not (c)`.
pub(crate) fn negated(module: &PyModule, test: &ast::Expr) -> String {
    if let ast::Expr::UnaryOp(u) = test {
        if u.op == ast::UnaryOp::Not {
            // The node's range runs to the end of the operand's parentheses, if any, so
            // the text after `not` is the operand as written: `not (a or b)` → `(a or b)`.
            let span = PyModule::span(test);
            let operand = module.text.get(span.start + 3..span.end).unwrap_or("");
            let operand = operand.trim_start_matches([' ', '\t', '\\', '\r', '\n']);
            if operand.is_empty() {
                return module.source(u.operand.as_ref()).to_string();
            }
            return operand.to_string();
        }
    }
    let source = module.source(test);
    match test {
        ast::Expr::Name(_) | ast::Expr::Call(_) | ast::Expr::Attribute(_) | ast::Expr::Subscript(_) => {
            format!("not {source}")
        }
        _ => format!("not ({source})"),
    }
}

/// Python's binding strength of an expression's outermost operator (higher binds tighter).
pub(crate) fn precedence(expr: &ast::Expr) -> u8 {
    match expr {
        ast::Expr::NamedExpr(_) | ast::Expr::Yield(_) | ast::Expr::YieldFrom(_) | ast::Expr::Starred(_) => 0,
        ast::Expr::Lambda(_) => 1,
        ast::Expr::IfExp(_) => 2,
        ast::Expr::BoolOp(b) => match b.op {
            ast::BoolOp::Or => 3,
            ast::BoolOp::And => 4,
        },
        ast::Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => 5,
        ast::Expr::Compare(_) => 6,
        ast::Expr::BinOp(b) => binop_precedence(&b.op),
        ast::Expr::UnaryOp(_) => 13,
        ast::Expr::Await(_) => 15,
        _ => 16,
    }
}

pub(crate) fn binop_precedence(op: &ast::Operator) -> u8 {
    match op {
        ast::Operator::BitOr => 7,
        ast::Operator::BitXor => 8,
        ast::Operator::BitAnd => 9,
        ast::Operator::LShift | ast::Operator::RShift => 10,
        ast::Operator::Add | ast::Operator::Sub => 11,
        ast::Operator::Mult
        | ast::Operator::MatMult
        | ast::Operator::Div
        | ast::Operator::FloorDiv
        | ast::Operator::Mod => 12,
        ast::Operator::Pow => 14,
    }
}

/// The text of `mutation` applied to the module's text.
pub(crate) fn spliced(module: &PyModule, mutation: &Mutation) -> Option<String> {
    let before = module.text.get(..mutation.start)?;
    let after = module.text.get(mutation.end..)?;
    Some(format!("{before}{}{after}", mutation.replacement))
}

/// Keeps the mutations whose result still parses (and that change something), sorted
/// by position, stable otherwise.
pub(crate) fn finish(module: &PyModule, mut mutations: Vec<Mutation>) -> Vec<Mutation> {
    mutations.retain(|m| module.text.get(m.start..m.end) != Some(m.replacement.as_str()) && still_parses(module, m));
    mutations.sort_by_key(|m| (m.start, m.end));
    mutations
}

/// Whether the module parses with `mutation` applied.
///
/// Parsing the whole file for every candidate is quadratic in practice, so this first
/// parses the smallest piece of text that decides it, when there is one:
///
/// * an edit inside one element of a list, set, tuple, dict or call's arguments is
///   parsed as that element alone in a copy of its container, and one strictly inside
///   the brackets of a list, set, dict, comprehension, call or subscript leaves that
///   expression an atom, parsed alone in parentheses (not inside f-strings);
/// * otherwise, the whole lines of the innermost statement around the edit whose first
///   line still starts a statement at the same indentation afterwards, under `if 1:` and
///   followed by a `pass` at that indentation when indented (so a line dedented below
///   the window, or a window left without statements, fails).
///
/// The text around the piece is unchanged, so a piece that parses means a file that
/// parses. Anything else is decided by parsing the whole file.
pub(crate) fn still_parses(module: &PyModule, mutation: &Mutation) -> bool {
    let edit = mutation.start..mutation.end;
    let text = &module.text;
    let mut enclosing = Vec::new();
    enclosing_statements(module, &module.suite, &edit, &mut enclosing);
    if let Some((open, span, close)) =
        enclosing.last().and_then(|(stmt, _)| stmt.and_then(|stmt| enclosing_atom(stmt, &edit)))
    {
        if let (Some(before), Some(after)) = (text.get(span.start..edit.start), text.get(edit.end..span.end)) {
            let piece = format!("{open}{before}{}{after}\n{close}\n", mutation.replacement);
            if parses(&piece, &module.path) {
                return true;
            }
        }
    }
    let windows = enclosing.iter().rev().filter_map(|(_, window)| window.as_ref());
    for (window, indent) in windows {
        let (Some(before), Some(after)) = (text.get(window.start..edit.start), text.get(edit.end..window.end)) else {
            break;
        };
        let changed = format!("{before}{}{after}", mutation.replacement);
        let first = changed.strip_prefix(indent.as_str()).and_then(|rest| rest.chars().next());
        if !first.is_some_and(|c| !c.is_whitespace() && c != '#' && c != '\\') {
            continue;
        }
        let candidate = if indent.is_empty() {
            changed
        } else {
            let newline = if changed.ends_with('\n') { "" } else { "\n" };
            format!("if 1:\n{changed}{newline}{indent}pass\n")
        };
        if parses(&candidate, &module.path) {
            return true;
        }
        break;
    }
    spliced(module, mutation).is_some_and(|text| parses(&text, &module.path))
}

/// A statement window: whole lines, and the indentation of the first.
type Window = (Range<usize>, String);

/// The statements, outermost first, whose lines hold all of `edit`, each with its
/// window when it has one (decorators count as a definition's lines; an `elif` and a
/// statement sharing its first line have none). An edit across several statements of
/// one block gets the window of that run of statements, without a statement.
fn enclosing_statements<'a>(
    module: &PyModule,
    block: &'a [ast::Stmt],
    edit: &Range<usize>,
    out: &mut Vec<(Option<&'a ast::Stmt>, Option<Window>)>,
) {
    let text = &module.text;
    // The statements whose lines meet the edit: (statement, first char, whole lines).
    let mut run: Vec<(&ast::Stmt, usize, Range<usize>)> = Vec::new();
    for stmt in block {
        let span = PyModule::span(stmt);
        let decorators: &[ast::Expr] = match stmt {
            ast::Stmt::FunctionDef(d) => &d.decorator_list,
            ast::Stmt::AsyncFunctionDef(d) => &d.decorator_list,
            ast::Stmt::ClassDef(c) => &c.decorator_list,
            _ => &[],
        };
        // A decorator's range starts after its `@`.
        let start = decorators
            .iter()
            .map(|d| {
                let at = PyModule::span(d).start;
                text[..at].rfind('@').unwrap_or(at)
            })
            .fold(span.start, usize::min);
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[span.end..].find('\n').map_or(text.len(), |i| span.end + i + 1);
        if line_start >= edit.end {
            break;
        }
        if line_end > edit.start {
            run.push((stmt, start, line_start..line_end));
        }
    }
    let (Some((first, start, first_lines)), Some((_, _, last_lines))) = (run.first(), run.last()) else { return };
    if !(first_lines.start <= edit.start && edit.end <= last_lines.end) {
        return;
    }
    let indent = &text[first_lines.start..*start];
    let window = (indent.trim().is_empty() && !is_elif(module, first))
        .then(|| (first_lines.start..last_lines.end, indent.to_string()));
    if run.len() > 1 {
        out.push((None, window));
        return;
    }
    // The statement with a neighbour, for an edit that deletes it: the window then
    // still starts with a statement. Tried after the statement's own window.
    if let Some(index) = block.iter().position(|s| std::ptr::eq(s, *first)) {
        let neighbour = |stmt: &ast::Stmt| {
            let span = PyModule::span(stmt);
            let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
            let line_end = text[span.end..].find('\n').map_or(text.len(), |i| span.end + i + 1);
            (span.start, line_start..line_end)
        };
        let pair = if let Some(next) = block.get(index + 1) {
            let (_, lines) = neighbour(next);
            (indent.trim().is_empty() && !is_elif(module, first))
                .then(|| (first_lines.start..lines.end, indent.to_string()))
        } else if let Some(previous) = index.checked_sub(1).and_then(|i| block.get(i)) {
            let undecorated = !matches!(previous, ast::Stmt::FunctionDef(d) if !d.decorator_list.is_empty())
                && !matches!(previous, ast::Stmt::AsyncFunctionDef(d) if !d.decorator_list.is_empty())
                && !matches!(previous, ast::Stmt::ClassDef(c) if !c.decorator_list.is_empty());
            let (start, lines) = neighbour(previous);
            let indent = &text[lines.start..start];
            (undecorated && indent.trim().is_empty()).then(|| (lines.start..first_lines.end, indent.to_string()))
        } else {
            None
        };
        if pair.is_some() {
            out.push((None, pair));
        }
    }
    out.push((Some(first), window));
    let blocks: Vec<&[ast::Stmt]> = match first {
        ast::Stmt::FunctionDef(d) => vec![&d.body],
        ast::Stmt::AsyncFunctionDef(d) => vec![&d.body],
        ast::Stmt::ClassDef(c) => vec![&c.body],
        other => child_blocks(other),
    };
    for inner in blocks {
        enclosing_statements(module, inner, edit, out);
    }
}

/// The smallest self-contained expression text around `edit` in `stmt`, as the text
/// to put before and after its range to parse it alone: an element of a list, set,
/// tuple, dict or call's arguments inside a one-element copy of its container, or else
/// a whole bracketed expression (list, set, dict, comprehension, call, subscript) with
/// the edit strictly inside its brackets, in parentheses. `None` inside an f-string or
/// an unpacking target.
fn enclosing_atom(stmt: &ast::Stmt, edit: &Range<usize>) -> Option<(&'static str, Range<usize>, &'static str)> {
    let holds = |e: &ast::Expr| {
        let span = PyModule::span(e);
        span.start <= edit.start && edit.end <= span.end
    };
    let mut level = stmt_exprs(stmt);
    let mut best = None;
    while let Some(next) = level.iter().copied().find(|e| holds(e)) {
        let span = PyModule::span(next);
        let inside = |from: usize| from < edit.start && edit.end < span.end;
        // One element of a container, in a copy of the container holding only it.
        let element = |elts: &[ast::Expr], open: &'static str, close: &'static str| {
            elts.iter().find(|e| holds(e)).map(|e| (open, PyModule::span(e), close))
        };
        let found = match next {
            ast::Expr::JoinedStr(_) | ast::Expr::FormattedValue(_) => return None,
            // Assignment targets stay targets only in their statement: no piece there.
            ast::Expr::List(l) if l.ctx != ast::ExprContext::Load => return None,
            ast::Expr::Tuple(t) if t.ctx != ast::ExprContext::Load => return None,
            ast::Expr::List(l) => element(&l.elts, "[", "]").or(inside(span.start).then_some(("(", span.clone(), ")"))),
            ast::Expr::Set(l) => element(&l.elts, "{", "}").or(inside(span.start).then_some(("(", span.clone(), ")"))),
            ast::Expr::Tuple(t) => element(&t.elts, "(", ",)"),
            ast::Expr::Dict(d) => {
                let entry = d.keys.iter().zip(&d.values).find_map(|(key, value)| match key {
                    Some(key) if holds(key) => Some(("{", PyModule::span(key), ": 0}")),
                    Some(_) => holds(value).then(|| ("{0: ", PyModule::span(value), "}")),
                    None => holds(value).then(|| ("{**", PyModule::span(value), "}")),
                });
                entry.or(inside(span.start).then_some(("(", span.clone(), ")")))
            }
            ast::Expr::ListComp(_) | ast::Expr::SetComp(_) | ast::Expr::DictComp(_) => {
                inside(span.start).then_some(("(", span.clone(), ")"))
            }
            ast::Expr::Call(c) => {
                let argument = element(&c.args, "f(", ")").or_else(|| {
                    c.keywords
                        .iter()
                        .find(|k| holds(&k.value))
                        .map(|k| (if k.arg.is_some() { "f(k=" } else { "f(**" }, PyModule::span(&k.value), ")"))
                });
                argument.or(inside(PyModule::span(c.func.as_ref()).end).then_some(("(", span.clone(), ")")))
            }
            ast::Expr::Subscript(s) => inside(PyModule::span(s.value.as_ref()).end).then_some(("(", span.clone(), ")")),
            _ => None,
        };
        if found.is_some() {
            best = found;
        }
        level = expr_children(next);
    }
    best
}

/// A short one-line rendering of source text for descriptions.
pub(crate) fn short(text: &str) -> String {
    let first = text.lines().next().unwrap_or("").trim_end();
    let mut out: String = first.chars().take(60).collect();
    if out.len() < text.trim_end().len() {
        out.push('…');
    }
    out
}

/// Deletes a statement's whole lines; `pass` (at its indentation) when it is the only
/// statement of its block.
pub(crate) fn remove_lines(op: &'static dyn Operator, module: &PyModule, site: &StmtSite<'_>) -> Option<Mutation> {
    let lines = module.whole_lines(site.stmt)?;
    let replacement = if site.block.len() == 1 {
        let removed = &module.text[lines.clone()];
        let newline = ["\r\n", "\n"].into_iter().find(|n| removed.ends_with(n)).unwrap_or("");
        format!("{}pass{newline}", module.indent_at(lines.start))
    } else {
        String::new()
    };
    let first_line = module.text[lines.clone()].lines().next().unwrap_or("").trim().to_string();
    Some(mutation_at(op, module, &site.function, lines, replacement, format!("remove `{}`", short(&first_line))))
}
