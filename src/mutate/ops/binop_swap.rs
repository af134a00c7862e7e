//! `binop-swap`: replaces an arithmetic or bitwise operator by another of its family
//! (`+` ↔ `-`, `*` ↔ `/` ↔ `//`, `%` → `//`, `**` → `*`, `&` ↔ `|`, `<<` ↔ `>>`).

use rustpython_ast::{self as ast, Operator as BinOp, Ranged};

use super::support::token_in_gap;
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::walk::owned_exprs;
use crate::python::PyModule;

pub(crate) struct BinOpSwap;

fn swaps(op: &BinOp) -> (&'static str, &'static [&'static str]) {
    match op {
        BinOp::Add => ("+", &["-"]),
        BinOp::Sub => ("-", &["+"]),
        BinOp::Mult => ("*", &["/", "//"]),
        BinOp::Div => ("/", &["*", "//"]),
        BinOp::FloorDiv => ("//", &["/", "%"]),
        BinOp::Mod => ("%", &["//"]),
        BinOp::Pow => ("**", &["*"]),
        BinOp::BitAnd => ("&", &["|"]),
        BinOp::BitOr => ("|", &["&"]),
        BinOp::BitXor => ("^", &["|"]),
        BinOp::LShift => ("<<", &[">>"]),
        BinOp::RShift => (">>", &["<<"]),
        BinOp::MatMult => ("@", &[]),
    }
}

impl Operator for BinOpSwap {
    fn name(&self) -> &'static str {
        "binop-swap"
    }

    fn description(&self) -> &'static str {
        "replaces an arithmetic or bitwise operator by another of its family (`+` ↔ `-`, `*` ↔ `/` ↔ `//`, `%` → `//`, `**` → `*`, `&` ↔ `|`, `<<` ↔ `>>`)"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Alter
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            let mut push = |range: std::ops::Range<usize>, token: &str, replacements: &[&str]| {
                for replacement in replacements {
                    out.push(mutation_at(
                        self,
                        module,
                        &site.function,
                        range.clone(),
                        replacement.to_string(),
                        format!("`{token}` → `{replacement}`"),
                    ));
                }
            };
            // Augmented assignment: `x += 1` → `x -= 1`.
            if let ast::Stmt::AugAssign(aug) = site.stmt {
                let (token, replacements) = swaps(&aug.op);
                let gap = aug.target.range().end().to_usize()..aug.value.range().start().to_usize();
                let augmented = format!("{token}=");
                if let Some(range) = token_in_gap(module, gap, &augmented) {
                    let alternatives: Vec<String> = replacements.iter().map(|r| format!("{r}=")).collect();
                    let refs: Vec<&str> = alternatives.iter().map(String::as_str).collect();
                    push(range, &augmented, &refs);
                }
            }
            for expr in owned_exprs(site.stmt) {
                let ast::Expr::BinOp(binop) = &expr else { continue };
                // String formatting with `%` and string concatenation are not arithmetic.
                if is_string(&binop.left) {
                    continue;
                }
                let (token, replacements) = swaps(&binop.op);
                let gap = binop.left.range().end().to_usize()..binop.right.range().start().to_usize();
                if let Some(range) = token_in_gap(module, gap, token) {
                    push(range, token, replacements);
                }
            }
        }
        // Source order of the edits, only those that still parse.
        super::support::finish(module, out)
    }
}

fn is_string(expr: &ast::Expr) -> bool {
    matches!(expr, ast::Expr::JoinedStr(_))
        || matches!(expr, ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_)))
}
