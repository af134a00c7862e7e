//! `flip-compare`: replaces a comparison operator by a near miss
//! (`<` ↔ `<=`, `>` ↔ `>=`, `==` ↔ `!=`, `in` ↔ `not in`, `is` ↔ `is not`).

use rustpython_ast::{self as ast, CmpOp, Ranged};

use super::support::token_in_gap;
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::walk::owned_exprs;
use crate::python::PyModule;

pub(crate) struct FlipCompare;

/// The operator's source token and its replacements.
fn flips(op: &CmpOp) -> (&'static str, &'static [&'static str]) {
    match op {
        CmpOp::Lt => ("<", &["<=", ">"]),
        CmpOp::LtE => ("<=", &["<", ">="]),
        CmpOp::Gt => (">", &[">=", "<"]),
        CmpOp::GtE => (">=", &[">", "<="]),
        CmpOp::Eq => ("==", &["!="]),
        CmpOp::NotEq => ("!=", &["=="]),
        CmpOp::In => ("in", &["not in"]),
        CmpOp::NotIn => ("not", &[]),
        CmpOp::Is => ("is", &["is not"]),
        CmpOp::IsNot => ("is", &[]),
    }
}

impl Operator for FlipCompare {
    fn name(&self) -> &'static str {
        "flip-compare"
    }

    fn description(&self) -> &'static str {
        "replaces a comparison operator by a near miss (`<` ↔ `<=`, `>` ↔ `>=`, `==` ↔ `!=`, `in` ↔ `not in`, `is` ↔ `is not`)"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Alter
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            for expr in owned_exprs(site.stmt) {
                let ast::Expr::Compare(compare) = &expr else { continue };
                let mut left_end = compare.left.range().end().to_usize();
                for (op, right) in compare.ops.iter().zip(&compare.comparators) {
                    let right_start = right.range().start().to_usize();
                    let (token, replacements) = flips(op);
                    if let Some(range) = token_in_gap(module, left_end..right_start, token) {
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
                    }
                    left_end = right.range().end().to_usize();
                }
            }
        }
        // Source order of the edits, only those that still parse.
        super::support::finish(module, out)
    }
}
