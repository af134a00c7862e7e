//! Source-text helpers over a parsed module: the lines a block occupies, whether an
//! `if` is an `elif`, exchanging two runs of lines, negating a condition, Python's
//! operator precedence, and a short one-line rendering for descriptions.

use std::ops::Range;

use rustpython_ast as ast;

use super::PyModule;

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

/// A short one-line rendering of source text for descriptions.
pub(crate) fn short(text: &str) -> String {
    let first = text.lines().next().unwrap_or("").trim_end();
    let mut out: String = first.chars().take(60).collect();
    if out.len() < text.trim_end().len() {
        out.push('…');
    }
    out
}
