//! `remove-loop`: deletes a `for`, `async for` or `while` loop (with its `else`, if
//! any) inside a function body, whole lines. A block left empty gets `pass`.

use rustpython_ast as ast;

use super::support::{finish, remove_lines};
use crate::mutate::operator::{Mutation, Operator, OperatorKind};
use crate::python::PyModule;

pub(crate) struct RemoveLoop;

impl Operator for RemoveLoop {
    fn name(&self) -> &'static str {
        "remove-loop"
    }

    fn description(&self) -> &'static str {
        "deletes a `for`, `async for` or `while` loop (with its `else`) inside a function body, whole lines"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Remove
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            if site.function.is_none()
                || !matches!(site.stmt, ast::Stmt::For(_) | ast::Stmt::AsyncFor(_) | ast::Stmt::While(_))
            {
                continue;
            }
            out.extend(remove_lines(self, module, &site));
        }
        finish(module, out)
    }
}
