//! Deciding the conditions that read an option once it is gone: each `if`/`elif` chain
//! rewritten with its clauses decided or left with the other operands, and each
//! conditional expression replaced by the branch that runs.

use std::ops::Range;

use rustpython_ast as ast;

use super::super::callers::Edit;
use super::super::refs;
use super::super::signature::has_effects;
use crate::python::text::{block_lines, is_elif};
use crate::python::PyModule;

/// Whether a clause condition of the chain starting at `head` mentions `name`.
pub(super) fn chain_mentions(module: &PyModule, head: &ast::StmtIf, name: &str) -> bool {
    clauses(module, head).iter().any(|c| c.test.is_some_and(|t| refs::mentions(module.source(t), name)))
}

/// One clause of an if-chain: its condition (none for `else`) and its body.
struct Clause<'a> {
    test: Option<&'a ast::Expr>,
    body: &'a [ast::Stmt],
}

/// The clauses of the chain starting at `head`, in order.
fn clauses<'a>(module: &PyModule, head: &'a ast::StmtIf) -> Vec<Clause<'a>> {
    let mut out = vec![Clause { test: Some(head.test.as_ref()), body: &head.body }];
    let mut current = head;
    loop {
        match current.orelse.as_slice() {
            [] => return out,
            [next @ ast::Stmt::If(elif)] if is_elif(module, next) => {
                out.push(Clause { test: Some(elif.test.as_ref()), body: &elif.body });
                current = elif;
            }
            orelse => {
                let from = current.body.last().map_or(0, |s| PyModule::span(s).end);
                let to = PyModule::span(&orelse[0]).start;
                if !module.text[from..to].contains("else") {
                    return out;
                }
                out.push(Clause { test: None, body: orelse });
                return out;
            }
        }
    }
}

/// A clause's condition once the option is taken out.
enum Decided {
    /// Always this value.
    Known(bool),
    /// This condition (the source of what is left of it).
    Rest(String),
}

/// The edit rewriting the chain `stmt` (whose first clause is `head`) with each
/// condition decided, and the spans of the conditions it decides.
pub(super) fn chain_edit(
    module: &PyModule,
    body: &[ast::Stmt],
    stmt: &ast::Stmt,
    head: &ast::StmtIf,
    name: &str,
    default: &ast::Constant,
) -> Option<(Edit, Vec<Range<usize>>)> {
    let text = &module.text;
    let all = clauses(module, head);
    let whole = module.whole_lines(stmt)?;
    let indent = module.indent_at(whole.start).to_string();
    let mut kept: Vec<(Option<String>, &Clause)> = Vec::new();
    let mut tests_at = Vec::new();
    for clause in &all {
        let decision = match clause.test {
            Some(test) if refs::mentions(module.source(test), name) => {
                tests_at.push(PyModule::span(test));
                decide(module, test, name, default)?
            }
            Some(test) => Decided::Rest(module.source(test).to_string()),
            None => Decided::Known(true),
        };
        match decision {
            Decided::Known(false) => {}
            Decided::Known(true) => {
                kept.push((None, clause));
                break;
            }
            Decided::Rest(condition) => kept.push((Some(condition), clause)),
        }
    }
    let replacement = match kept.as_slice() {
        [] if is_only(body, stmt) => return None,
        [] => String::new(),
        [(None, clause)] => dedented(module, clause.body, indent.len())?,
        _ => {
            let mut out = String::new();
            for (i, (condition, clause)) in kept.iter().enumerate() {
                let lines = block_lines(module, clause.body)?;
                let header_end = text[..lines.start].trim_end().len();
                let colon = header_end.checked_sub(1).filter(|&c| text[c..].starts_with(':'))?;
                let header = match (i, condition) {
                    (0, Some(c)) => format!("if {c}"),
                    (_, Some(c)) => format!("elif {c}"),
                    (_, None) => "else".to_string(),
                };
                out.push_str(&format!("{indent}{header}{}", &text[colon..lines.start]));
                out.push_str(&text[lines]);
            }
            out
        }
    };
    let mut end = all.last().and_then(|c| block_lines(module, c.body)).map(|l| l.end)?.max(whole.end);
    // Every clause left leaves the block (`raise`, `return`, ...) and one always runs:
    // what followed the chain is dead, as a developer without the option would not
    // have written it.
    let always = matches!(kept.last(), Some((None, _)));
    if always && kept.iter().all(|(_, clause)| leaves(clause.body)) {
        if let Some(last) = following(body, stmt).last() {
            end = module.whole_lines(last)?.end;
        }
    }
    Some((Edit::new(whole.start..end, replacement), tests_at))
}

/// Whether a block always leaves its enclosing one: it ends in `return`, `raise`,
/// `continue` or `break`.
fn leaves(block: &[ast::Stmt]) -> bool {
    matches!(
        block.last(),
        Some(ast::Stmt::Return(_) | ast::Stmt::Raise(_) | ast::Stmt::Continue(_) | ast::Stmt::Break(_))
    )
}

/// The statements after `stmt` in its block of `body`.
fn following<'a>(body: &'a [ast::Stmt], stmt: &ast::Stmt) -> &'a [ast::Stmt] {
    let mut blocks = Vec::new();
    collect_blocks(body, &mut blocks);
    blocks
        .into_iter()
        .find_map(|b| b.iter().position(|s| std::ptr::eq(s, stmt)).map(|i| &b[i + 1..]))
        .unwrap_or(&[])
}

/// Whether `stmt` is its block's only statement (a docstring aside).
fn is_only(body: &[ast::Stmt], stmt: &ast::Stmt) -> bool {
    let mut blocks = Vec::new();
    collect_blocks(body, &mut blocks);
    blocks.iter().any(|b| b.len() == 1 && std::ptr::eq(&b[0], stmt))
}

/// Every block of a body (nested ones included; not nested functions' or classes').
fn collect_blocks<'a>(block: &'a [ast::Stmt], out: &mut Vec<&'a [ast::Stmt]>) {
    out.push(block);
    for stmt in block {
        if !matches!(stmt, ast::Stmt::FunctionDef(_) | ast::Stmt::AsyncFunctionDef(_) | ast::Stmt::ClassDef(_)) {
            for inner in crate::python::walk::child_blocks(stmt) {
                collect_blocks(inner, out);
            }
        }
    }
}

/// The lines of `block`, each moved left to `indent` columns; `None` when a line is
/// indented less than the block or a string runs over lines.
fn dedented(module: &PyModule, block: &[ast::Stmt], indent: usize) -> Option<String> {
    let lines = block_lines(module, block)?;
    let text = &module.text[lines];
    if text.contains("\"\"\"") || text.contains("'''") {
        return None;
    }
    let own = module.indent_at(PyModule::span(block.first()?).start).len();
    let cut = own.checked_sub(indent)?;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        if line.trim().is_empty() {
            out.push_str(line.trim_start_matches([' ', '\t']));
            continue;
        }
        let width = line.len() - line.trim_start_matches(' ').len();
        if width < own {
            return None;
        }
        out.push_str(&line[cut..]);
    }
    Some(out)
}

/// The edit of a conditional expression whose condition reads the option: the branch it
/// decides, or the condition left.
pub(super) fn conditional_edit(module: &PyModule, e: &ast::ExprIfExp, name: &str, default: &ast::Constant) -> Option<Edit> {
    match decide(module, e.test.as_ref(), name, default)? {
        Decided::Known(value) => {
            let chosen = if value { e.body.as_ref() } else { e.orelse.as_ref() };
            Some(Edit::new(PyModule::span(e), grouped(module, chosen)))
        }
        Decided::Rest(condition) => Some(Edit::new(PyModule::span(e.test.as_ref()), condition)),
    }
}

/// The source of `expr`, in parentheses when it binds looser than a comparison.
fn grouped(module: &PyModule, expr: &ast::Expr) -> String {
    let source = module.source(expr);
    match expr {
        ast::Expr::BoolOp(_)
        | ast::Expr::IfExp(_)
        | ast::Expr::Lambda(_)
        | ast::Expr::NamedExpr(_)
        | ast::Expr::Tuple(_)
        | ast::Expr::UnaryOp(ast::ExprUnaryOp { op: ast::UnaryOp::Not, .. })
            if !source.starts_with('(') =>
        {
            format!("({source})")
        }
        _ => source.to_string(),
    }
}

/// A condition with the option at its default (see the module header); `None` when it
/// reads the option another way.
fn decide(module: &PyModule, expr: &ast::Expr, name: &str, default: &ast::Constant) -> Option<Decided> {
    if !refs::mentions(module.source(expr), name) {
        return Some(Decided::Rest(grouped(module, expr)));
    }
    match expr {
        ast::Expr::Name(n) if n.id.as_str() == name => Some(Decided::Known(truthy(default)?)),
        ast::Expr::UnaryOp(u) if u.op == ast::UnaryOp::Not => match decide(module, &u.operand, name, default)? {
            Decided::Known(value) => Some(Decided::Known(!value)),
            Decided::Rest(_) => None,
        },
        ast::Expr::Compare(c) if c.ops.len() == 1 && matches!(c.left.as_ref(), ast::Expr::Name(n) if n.id.as_str() == name) => {
            let ast::Expr::Constant(other) = &c.comparators[0] else { return None };
            let equal = same(default, &other.value)?;
            match c.ops[0] {
                ast::CmpOp::Is | ast::CmpOp::Eq => Some(Decided::Known(equal)),
                ast::CmpOp::IsNot | ast::CmpOp::NotEq => Some(Decided::Known(!equal)),
                _ => None,
            }
        }
        ast::Expr::BoolOp(b) => {
            let and = b.op == ast::BoolOp::And;
            let mut rest = Vec::new();
            let mut settled = false;
            for value in &b.values {
                match decide(module, value, name, default)? {
                    // `x and False` is False whatever `x` is (and `x or True` True), if
                    // evaluating `x` has no effect.
                    Decided::Known(v) if v != and => settled = true,
                    Decided::Known(_) => {}
                    Decided::Rest(condition) => rest.push((condition, value)),
                }
            }
            if settled {
                return rest.iter().all(|(_, v)| !has_effects(v)).then_some(Decided::Known(!and));
            }
            match rest.len() {
                0 => Some(Decided::Known(and)),
                _ => Some(Decided::Rest(rest.into_iter().map(|(c, _)| c).collect::<Vec<_>>().join(if and { " and " } else { " or " }))),
            }
        }
        _ => None,
    }
}

/// A constant's truth value (`None` for one whose truth this does not decide).
fn truthy(constant: &ast::Constant) -> Option<bool> {
    match constant {
        ast::Constant::None => Some(false),
        ast::Constant::Bool(b) => Some(*b),
        ast::Constant::Str(s) => Some(!s.is_empty()),
        ast::Constant::Bytes(b) => Some(!b.is_empty()),
        ast::Constant::Int(i) => Some(i.to_string() != "0"),
        ast::Constant::Float(f) => Some(*f != 0.0),
        _ => None,
    }
}

/// Whether two constants are equal (`None` when this does not decide it).
fn same(a: &ast::Constant, b: &ast::Constant) -> Option<bool> {
    match (a, b) {
        (ast::Constant::None, ast::Constant::None) => Some(true),
        (ast::Constant::None, _) | (_, ast::Constant::None) => Some(false),
        (ast::Constant::Bool(x), ast::Constant::Bool(y)) => Some(x == y),
        (ast::Constant::Str(x), ast::Constant::Str(y)) => Some(x == y),
        (ast::Constant::Int(x), ast::Constant::Int(y)) => Some(x == y),
        _ => None,
    }
}
