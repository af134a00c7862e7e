//! `remove-statement`: deletes one simple statement inside a function body (an
//! assignment, augmented assignment, expression call or `raise`), the way a feature is
//! stripped. A block left empty gets `pass`. Whole `if` statements and loops are
//! `remove-if`'s and `remove-loop`'s.

use rustpython_ast as ast;

use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::walk::is_docstring;
use crate::python::PyModule;

pub(crate) struct RemoveStatement;

fn removable(stmt: &ast::Stmt) -> bool {
    match stmt {
        ast::Stmt::Assign(_) | ast::Stmt::AugAssign(_) | ast::Stmt::AnnAssign(_) => true,
        ast::Stmt::Expr(_) => !is_docstring(stmt),
        ast::Stmt::Raise(_) => true,
        _ => false,
    }
}

impl Operator for RemoveStatement {
    fn name(&self) -> &'static str {
        "remove-statement"
    }

    fn description(&self) -> &'static str {
        "deletes one simple statement inside a function body (an assignment, augmented assignment, expression call or `raise`)"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Remove
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            if site.function.is_none() || !removable(site.stmt) {
                continue;
            }
            let Some(lines) = module.whole_lines(site.stmt) else { continue };
            let only_statement = site.block.iter().filter(|s| !is_docstring(s)).count() == 1;
            let replacement =
                if only_statement { format!("{}pass\n", module.indent_at(lines.start)) } else { String::new() };
            let first_line = module.text[lines.clone()].lines().next().unwrap_or("").trim().to_string();
            out.push(mutation_at(self, module, &site.function, lines, replacement, format!("remove `{first_line}`")));
        }
        // Source order of the edits, only those that still parse.
        super::support::finish(module, out)
    }
}
