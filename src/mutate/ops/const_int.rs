//! `const-int`: changes an integer literal by one (`n` → `n + 1`, `n` → `n - 1`).
//! Booleans, floats and literals written in another base are left alone.

use rustpython_ast as ast;

use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::walk::owned_exprs;
use crate::python::PyModule;

pub(crate) struct ConstInt;

impl Operator for ConstInt {
    fn name(&self) -> &'static str {
        "const-int"
    }

    fn description(&self) -> &'static str {
        "changes an integer literal by one (`n` → `n + 1`, `n` → `n - 1`)"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Alter
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            for expr in owned_exprs(site.stmt) {
                let ast::Expr::Constant(constant) = &expr else { continue };
                if !matches!(constant.value, ast::Constant::Int(_)) {
                    continue;
                }
                let range = PyModule::span(expr);
                let written = &module.text[range.clone()];
                let Ok(value) = written.replace('_', "").parse::<i64>() else { continue };
                let mut candidates = vec![value + 1];
                if value > 0 {
                    candidates.push(value - 1);
                }
                for new in candidates {
                    out.push(mutation_at(
                        self,
                        module,
                        &site.function,
                        range.clone(),
                        new.to_string(),
                        format!("`{written}` → `{new}`"),
                    ));
                }
            }
        }
        // Source order of the edits, only those that still parse.
        super::support::finish(module, out)
    }
}
