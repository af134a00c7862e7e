//! `return-value`: replaces the value of a `return` by `None` (`return total` →
//! `return None`), or flips a returned `True`/`False`. `return None` and a bare
//! `return` are left alone.

use rustpython_ast as ast;

use super::support::finish;
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::text::short;
use crate::python::PyModule;

pub(crate) struct ReturnValue;

impl Operator for ReturnValue {
    fn name(&self) -> &'static str {
        "return-value"
    }

    fn description(&self) -> &'static str {
        "replaces the value of a `return` by `None`, or flips a returned `True`/`False`"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Alter
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            let ast::Stmt::Return(ret) = site.stmt else { continue };
            let Some(value) = ret.value.as_deref() else { continue };
            let replacement = match value {
                ast::Expr::Constant(c) => match c.value {
                    ast::Constant::None => continue,
                    ast::Constant::Bool(b) => {
                        if b {
                            "False"
                        } else {
                            "True"
                        }
                    }
                    _ => "None",
                },
                _ => "None",
            };
            let written = short(module.source(value));
            out.push(mutation_at(
                self,
                module,
                &site.function,
                PyModule::span(value),
                replacement.to_string(),
                format!("`return {written}` → `return {replacement}`"),
            ));
        }
        finish(module, out)
    }
}
