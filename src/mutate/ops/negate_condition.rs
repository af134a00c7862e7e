//! `negate-condition`: negates the test of an `if`, `elif`, `while` or conditional
//! expression (`c` → `not (c)`, `not c` for a plain name, call, attribute or subscript),
//! or drops the negation of a test that is already `not x`. Constant tests
//! (`while True:`) are left alone.

use rustpython_ast as ast;

use super::support::finish;
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::text::{negated, short};
use crate::python::walk::owned_exprs;
use crate::python::PyModule;

pub(crate) struct NegateCondition;

impl NegateCondition {
    fn negate(&'static self, module: &PyModule, function: &Option<String>, test: &ast::Expr, out: &mut Vec<Mutation>) {
        if matches!(test, ast::Expr::Constant(_)) {
            return;
        }
        let replacement = negated(module, test);
        let description = format!("`{}` → `{}`", short(module.source(test)), short(&replacement));
        out.push(mutation_at(self, module, function, PyModule::span(test), replacement, description));
    }
}

impl Operator for NegateCondition {
    fn name(&self) -> &'static str {
        "negate-condition"
    }

    fn description(&self) -> &'static str {
        "negates the test of an `if`, `elif`, `while` or conditional expression, or drops the negation of a test that is already `not x`"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Alter
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            match site.stmt {
                ast::Stmt::If(s) => self.negate(module, &site.function, &s.test, &mut out),
                ast::Stmt::While(s) => self.negate(module, &site.function, &s.test, &mut out),
                _ => {}
            }
            for expr in owned_exprs(site.stmt) {
                if let ast::Expr::IfExp(ifexp) = expr {
                    self.negate(module, &site.function, &ifexp.test, &mut out);
                }
            }
        }
        finish(module, out)
    }
}
