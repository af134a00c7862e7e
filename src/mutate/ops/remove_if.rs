//! `remove-if`: deletes an `if` statement without `else` (and that is not an `elif`)
//! inside a function body, whole lines. A block left empty gets `pass`.

use rustpython_ast as ast;

use super::support::{finish, remove_lines};
use crate::mutate::operator::{Mutation, Operator, OperatorKind};
use crate::python::text::is_elif;
use crate::python::PyModule;

pub(crate) struct RemoveIf;

impl Operator for RemoveIf {
    fn name(&self) -> &'static str {
        "remove-if"
    }

    fn description(&self) -> &'static str {
        "deletes an `if` statement without `else` inside a function body, whole lines"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Remove
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            let ast::Stmt::If(stmt) = site.stmt else { continue };
            if site.function.is_none() || !stmt.orelse.is_empty() || is_elif(module, site.stmt) {
                continue;
            }
            out.extend(remove_lines(self, module, &site));
        }
        finish(module, out)
    }
}
