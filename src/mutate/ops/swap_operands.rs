//! `swap-operands`: exchanges the operands of a non-commutative operator
//! (`a - b` → `b - a` for `-`, `/`, `//`, `%`, `**`, `<<`, `>>`) or of a single ordering
//! comparison (`a < b` → `b < a`). Operands keep their own parentheses, comments and
//! spacing; one that would bind differently in its new place gets parentheses.

use std::ops::Range;

use rustpython_ast::{self as ast, CmpOp, Operator as BinOp};

use super::support::finish;
use super::support::token_in_gap;
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::text::{binop_precedence, precedence};
use crate::python::walk::owned_exprs;
use crate::python::PyModule;

pub(crate) struct SwapOperands;

fn binop_token(op: &BinOp) -> Option<&'static str> {
    match op {
        BinOp::Sub => Some("-"),
        BinOp::Div => Some("/"),
        BinOp::FloorDiv => Some("//"),
        BinOp::Mod => Some("%"),
        BinOp::Pow => Some("**"),
        BinOp::LShift => Some("<<"),
        BinOp::RShift => Some(">>"),
        _ => None,
    }
}

fn compare_token(op: &CmpOp) -> Option<&'static str> {
    match op {
        CmpOp::Lt => Some("<"),
        CmpOp::LtE => Some("<="),
        CmpOp::Gt => Some(">"),
        CmpOp::GtE => Some(">="),
        _ => None,
    }
}

/// How an operator groups: the operand precedence each side needs without parentheses.
struct Binding {
    precedence: u8,
    right_associative: bool,
    /// Comparisons chain, so an operand must bind strictly tighter on both sides.
    chaining: bool,
}

impl Binding {
    fn needs_parens(&self, operand: &ast::Expr, on_right: bool) -> bool {
        let p = precedence(operand);
        if self.chaining {
            return p <= self.precedence;
        }
        // The side the operator associates towards accepts an operand of equal precedence.
        let loose_side = on_right == self.right_associative;
        if loose_side {
            p < self.precedence
        } else {
            p <= self.precedence
        }
    }
}

/// The operand's extent with its own parentheses: from `from` through the closing `)`s
/// found in `gap` before the operator token (left), or from the first `(` after the
/// token (right).
fn left_extent(module: &PyModule, gap: Range<usize>, token_start: usize) -> usize {
    let mut end = gap.start;
    let text = module.text.get(gap.start..token_start).unwrap_or("");
    let mut offset = 0;
    let bytes = text.as_bytes();
    while offset < bytes.len() {
        match bytes[offset] {
            b')' => {
                offset += 1;
                end = gap.start + offset;
            }
            b'#' => offset += text[offset..].find('\n').unwrap_or(text.len() - offset),
            _ => offset += 1,
        }
    }
    end
}

fn right_extent(module: &PyModule, token_end: usize, operand_start: usize) -> usize {
    let text = module.text.get(token_end..operand_start).unwrap_or("");
    let mut offset = 0;
    let bytes = text.as_bytes();
    while offset < bytes.len() {
        match bytes[offset] {
            b'(' => return token_end + offset,
            b'#' => offset += text[offset..].find('\n').unwrap_or(text.len() - offset),
            _ => offset += 1,
        }
    }
    operand_start
}

impl SwapOperands {
    /// The mutation exchanging `left` and `right` around `token` inside `whole`.
    #[allow(clippy::too_many_arguments)]
    fn swap(
        &'static self,
        module: &PyModule,
        function: &Option<String>,
        whole: Range<usize>,
        left: &ast::Expr,
        right: &ast::Expr,
        token: &str,
        binding: Binding,
    ) -> Option<Mutation> {
        let left_span = PyModule::span(left);
        let right_span = PyModule::span(right);
        let op = token_in_gap(module, left_span.end..right_span.start, token)?;
        let left_end = left_extent(module, left_span.end..right_span.start, op.start);
        let right_start = right_extent(module, op.end, right_span.start);
        let left_text = module.text.get(whole.start..left_end)?;
        let right_text = module.text.get(right_start..whole.end)?;
        let middle = module.text.get(left_end..right_start)?;
        // An operand already in parentheses is written wider than its node.
        let wrap = |text: &str, operand: &ast::Expr, on_right: bool| {
            let bare = text == module.source(operand);
            if bare && binding.needs_parens(operand, on_right) {
                format!("({text})")
            } else {
                text.to_string()
            }
        };
        let replacement = format!("{}{middle}{}", wrap(right_text, right, false), wrap(left_text, left, true));
        Some(mutation_at(self, module, function, whole, replacement, format!("swap the operands of `{token}`")))
    }
}

impl Operator for SwapOperands {
    fn name(&self) -> &'static str {
        "swap-operands"
    }

    fn description(&self) -> &'static str {
        "exchanges the operands of a non-commutative operator or of a single ordering comparison (`a - b` → `b - a`, `a < b` → `b < a`)"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Alter
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            for expr in owned_exprs(site.stmt) {
                let whole = PyModule::span(expr);
                let mutation = match expr {
                    ast::Expr::BinOp(binop) => {
                        let Some(token) = binop_token(&binop.op) else { continue };
                        // `"%d" % n` is string formatting, not arithmetic.
                        if binop.op == BinOp::Mod && is_string(&binop.left) {
                            continue;
                        }
                        let binding = Binding {
                            precedence: binop_precedence(&binop.op),
                            right_associative: binop.op == BinOp::Pow,
                            chaining: false,
                        };
                        self.swap(module, &site.function, whole, &binop.left, &binop.right, token, binding)
                    }
                    ast::Expr::Compare(compare) => {
                        let ([op], [right]) = (compare.ops.as_slice(), compare.comparators.as_slice()) else {
                            continue;
                        };
                        let Some(token) = compare_token(op) else { continue };
                        let binding = Binding { precedence: 6, right_associative: false, chaining: true };
                        self.swap(module, &site.function, whole, &compare.left, right, token, binding)
                    }
                    _ => continue,
                };
                out.extend(mutation);
            }
        }
        finish(module, out)
    }
}

fn is_string(expr: &ast::Expr) -> bool {
    matches!(expr, ast::Expr::JoinedStr(_))
        || matches!(expr, ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_) | ast::Constant::Bytes(_)))
}
