//! Whether a module still parses with a byte range replaced, decided by parsing the
//! smallest piece of text that decides it (see [`still_parses`]): the final filter of
//! every mutation, and usable by any stage that splices Python source.

use std::ops::Range;

use rustpython_ast as ast;

use super::text::is_elif;
use super::walk::{child_blocks, expr_children, stmt_exprs};
use super::{parses, PyModule};

/// Whether the module parses with `edit` (a byte range of its text) replaced by
/// `replacement`.
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
pub(crate) fn still_parses(module: &PyModule, edit: Range<usize>, replacement: &str) -> bool {
    let text = &module.text;
    let mut enclosing = Vec::new();
    enclosing_statements(module, &module.suite, &edit, &mut enclosing);
    if let Some((open, span, close)) =
        enclosing.last().and_then(|(stmt, _)| stmt.and_then(|stmt| enclosing_atom(stmt, &edit)))
    {
        if let (Some(before), Some(after)) = (text.get(span.start..edit.start), text.get(edit.end..span.end)) {
            let piece = format!("{open}{before}{}{after}\n{close}\n", replacement);
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
        let changed = format!("{before}{}{after}", replacement);
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
    let (Some(before), Some(after)) = (text.get(..edit.start), text.get(edit.end..)) else { return false };
    parses(&format!("{before}{replacement}{after}"), &module.path)
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
