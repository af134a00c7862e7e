//! The clauses of a function body that `branch` may take out, each named by its kind and
//! header text (so that it is found again in a tree that differs elsewhere), and the
//! text splice that takes one out.
//!
//! Found in the function's own blocks (not in nested functions or classes): every
//! `elif` and the `else` of an if-chain; a guard (an `if` without `elif`/`else` whose
//! body ends in `raise`, `return`, `continue` or `break`) in a block keeping another
//! statement and not inside a `while` loop (without it the loop may never end: a test
//! run that times out); every `except` handler of a `try` with two or more. Each must
//! start its own line and its body end one.

use std::ops::Range;

use rustpython_ast as ast;

use crate::python::text::is_elif;
use crate::python::walk::{child_blocks, is_docstring};
use crate::python::PyModule;

use super::super::strip;

/// What kind of clause a site takes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "kebab-case")]
pub(super) enum Form {
    /// An `elif` clause (its header and body).
    Elif,
    /// The `else` clause of an if-chain.
    Else,
    /// A whole `if` that returns, continues or breaks early.
    Guard,
    /// A whole `if` that raises.
    Reject,
    /// One `except` handler.
    Except,
}

impl Form {
    pub(super) fn name(self) -> &'static str {
        self.into()
    }
}

/// A clause of a function body.
pub(super) struct Clause {
    pub(crate) form: Form,
    /// What names it among the function's clauses of its form, whitespace collapsed:
    /// the condition (`elif`, guard), the chain's first condition (`else`), the
    /// exception type (`except`; empty for a bare one).
    pub(crate) header: String,
    /// The bytes its own code spans (keyword to the end of its body): what it reads.
    pub(crate) span: Range<usize>,
    /// The whole lines taken out: the clause, the comment lines right above it at its
    /// indentation and those right after it indented deeper.
    pub(crate) lines: Range<usize>,
    /// A guard opens its block (the blank lines around it join as for a statement).
    pub(crate) first_in_block: bool,
    /// Where the statement holding it starts (an `else`'s `if`; the clause itself for
    /// the others): code before it runs whichever clause runs.
    pub(crate) statement_start: usize,
}

impl Clause {
    /// The module's text without the clause.
    pub(super) fn removed_from(&self, text: &str) -> String {
        match self.form {
            Form::Guard | Form::Reject => strip::without_lines(text, self.lines.clone(), self.first_in_block),
            Form::Elif | Form::Else | Form::Except => format!("{}{}", &text[..self.lines.start], &text[self.lines.end..]),
        }
    }
}

/// The clauses of a function body, in source order.
pub(super) fn of(module: &PyModule, body: &[ast::Stmt]) -> Vec<Clause> {
    let mut out = Vec::new();
    walk(module, body, false, &mut out);
    out.sort_by_key(|c| c.span.start);
    out
}

/// The clauses of a block (`looping`: inside a `while` loop).
fn walk(module: &PyModule, block: &[ast::Stmt], looping: bool, out: &mut Vec<Clause>) {
    for (index, stmt) in block.iter().enumerate() {
        match stmt {
            ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_) => continue,
            ast::Stmt::If(head) if !is_elif(module, stmt) => chain(module, block, index, head, looping, out),
            ast::Stmt::Try(t) if t.handlers.len() >= 2 => handlers(module, &t.handlers, out),
            _ => {}
        }
        let looping = looping || matches!(stmt, ast::Stmt::While(_));
        for inner in child_blocks(stmt) {
            walk(module, inner, looping, out);
        }
    }
}

/// Source text with its whitespace runs collapsed to one space.
fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The clauses of the if-chain headed by `block[index]`.
fn chain(
    module: &PyModule,
    block: &[ast::Stmt],
    index: usize,
    head: &ast::StmtIf,
    looping: bool,
    out: &mut Vec<Clause>,
) {
    let condition = collapsed(module.source(head.test.as_ref()));
    if head.orelse.is_empty() {
        if !looping {
            out.extend(guard(module, block, index, head, condition));
        }
        return;
    }
    let mut current = head;
    loop {
        match current.orelse.as_slice() {
            [] => return,
            [next @ ast::Stmt::If(elif)] if is_elif(module, next) => {
                let span = PyModule::span(next).start..body_end(&elif.body);
                if let Some(lines) = clause_lines(module, span.clone()) {
                    let header = collapsed(module.source(elif.test.as_ref()));
                    let statement_start = span.start;
                    out.push(Clause { form: Form::Elif, header, span, lines, first_in_block: false, statement_start });
                }
                current = elif;
            }
            orelse => {
                let Some(keyword) = else_keyword(&module.text, body_end(&current.body), PyModule::span(&orelse[0]).start)
                else {
                    return;
                };
                let span = keyword..body_end(orelse);
                if let Some(lines) = clause_lines(module, span.clone()) {
                    let statement_start = PyModule::span(&block[index]).start;
                    out.push(Clause { form: Form::Else, header: condition, span, lines, first_in_block: false, statement_start });
                }
                return;
            }
        }
    }
}

/// The guard `block[index]`, if it is one: its body ends the flow, and the block keeps
/// another statement besides a docstring.
fn guard(module: &PyModule, block: &[ast::Stmt], index: usize, head: &ast::StmtIf, condition: String) -> Option<Clause> {
    let form = match head.body.last()? {
        ast::Stmt::Raise(_) => Form::Reject,
        ast::Stmt::Return(_) | ast::Stmt::Continue(_) | ast::Stmt::Break(_) => Form::Guard,
        _ => return None,
    };
    let others = block.iter().enumerate().filter(|(i, s)| *i != index && !is_docstring(s)).count();
    if others == 0 {
        return None;
    }
    let span = PyModule::span(&block[index]);
    let lines = clause_lines(module, span.clone())?;
    let statement_start = span.start;
    Some(Clause { form, header: condition, span, lines, first_in_block: index == 0, statement_start })
}

/// The `except` clauses of a `try` with two or more.
fn handlers(module: &PyModule, handlers: &[ast::ExceptHandler], out: &mut Vec<Clause>) {
    for handler in handlers {
        let ast::ExceptHandler::ExceptHandler(h) = handler;
        let span = PyModule::span(handler).start..body_end(&h.body);
        let header = h.type_.as_ref().map(|t| collapsed(module.source(t.as_ref()))).unwrap_or_default();
        if let Some(lines) = clause_lines(module, span.clone()) {
            let statement_start = span.start;
            out.push(Clause { form: Form::Except, header, span, lines, first_in_block: false, statement_start });
        }
    }
}

fn body_end(body: &[ast::Stmt]) -> usize {
    body.last().map_or(0, |s| PyModule::span(s).end)
}

/// Where the `else` keyword between a body's end and the `else` body's start is.
fn else_keyword(text: &str, from: usize, to: usize) -> Option<usize> {
    let mut at = strip::line_start(text, from);
    for line in text[at..to].split_inclusive('\n') {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("else") {
            if rest.trim_start().starts_with(':') {
                return Some(at + line.len() - trimmed.len());
            }
        }
        at += line.len();
    }
    None
}

/// The whole lines of a clause spanning `span`: none when code shares its first or last
/// line; with the comment lines right above it at its indentation and right after it
/// indented deeper.
fn clause_lines(module: &PyModule, span: Range<usize>) -> Option<Range<usize>> {
    let text = &module.text;
    let mut start = strip::line_start(text, span.start);
    if !text[start..span.start].trim().is_empty() {
        return None;
    }
    let mut end = text[span.end..].find('\n').map_or(text.len(), |i| span.end + i + 1);
    let rest = text[span.end..end].trim();
    if !(rest.is_empty() || rest.starts_with('#')) {
        return None;
    }
    let indent = span.start - start;
    let width = |line: &str| line.len() - line.trim_start_matches([' ', '\t']).len();
    while start > 0 {
        let above = strip::line_start(text, start - 1);
        let line = &text[above..start];
        if !(line.trim_start().starts_with('#') && width(line) == indent) {
            break;
        }
        start = above;
    }
    while end < text.len() {
        let next = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
        let line = &text[end..next];
        if !(line.trim_start().starts_with('#') && width(line) > indent) {
            break;
        }
        end = next;
    }
    Some(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clauses(text: &str) -> Vec<(Form, String, String)> {
        let module = PyModule::parse("m.py", text).unwrap();
        let ast::Stmt::FunctionDef(def) = &module.suite[0] else { panic!() };
        of(&module, &def.body)
            .into_iter()
            .map(|c| (c.form, c.header.clone(), c.removed_from(text)))
            .collect()
    }

    #[test]
    fn chains_guards_and_handlers_are_found_and_cut() {
        let text = "def f(x):\n    if x is None:\n        return 0\n    if x > 1:\n        y = 1\n    \
                    # two\n    elif x == 2:\n        y = 2\n    else:\n        y = 3\n    try:\n        \
                    return y / x\n    except ZeroDivisionError:\n        return 0\n    except TypeError:\n        \
                    raise\n";
        let found = clauses(text);
        let forms: Vec<(Form, &str)> = found.iter().map(|(f, h, _)| (*f, h.as_str())).collect();
        assert_eq!(
            forms,
            [
                (Form::Guard, "x is None"),
                (Form::Elif, "x == 2"),
                (Form::Else, "x > 1"),
                (Form::Except, "ZeroDivisionError"),
                (Form::Except, "TypeError"),
            ]
        );
        assert!(!found[1].2.contains("two") && !found[1].2.contains("y = 2") && found[1].2.contains("else:"));
        assert!(!found[2].2.contains("else:") && found[2].2.contains("elif x == 2:"));
        for (_, _, after) in &found {
            assert!(crate::python::parses(after, "m.py"), "{after}");
        }
    }

    #[test]
    fn a_sole_guard_and_a_single_handler_are_no_clauses() {
        assert!(clauses("def f(x):\n    \"\"\"Doc.\"\"\"\n    if x:\n        raise ValueError(x)\n").is_empty());
        assert!(clauses("def f(x):\n    try:\n        g()\n    except E:\n        pass\n    return 1\n").is_empty());
    }
}
