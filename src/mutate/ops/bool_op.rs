//! `bool-op`: exchanges `and` and `or` between two values of a boolean operation.

use rustpython_ast::{self as ast, Ranged};

use super::support::finish;
use super::support::token_in_gap;
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::walk::owned_exprs;
use crate::python::PyModule;

pub(crate) struct BoolOpSwap;

impl Operator for BoolOpSwap {
    fn name(&self) -> &'static str {
        "bool-op"
    }

    fn description(&self) -> &'static str {
        "exchanges `and` and `or` between two values of a boolean operation"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Alter
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            for expr in owned_exprs(site.stmt) {
                let ast::Expr::BoolOp(boolop) = expr else { continue };
                let (token, replacement) = match boolop.op {
                    ast::BoolOp::And => ("and", "or"),
                    ast::BoolOp::Or => ("or", "and"),
                };
                for pair in boolop.values.windows(2) {
                    let gap = pair[0].range().end().to_usize()..pair[1].range().start().to_usize();
                    if let Some(range) = token_in_gap(module, gap, token) {
                        out.push(mutation_at(
                            self,
                            module,
                            &site.function,
                            range,
                            replacement.to_string(),
                            format!("`{token}` → `{replacement}`"),
                        ));
                    }
                }
            }
        }
        finish(module, out)
    }
}
