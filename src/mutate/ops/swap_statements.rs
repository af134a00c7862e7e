//! `swap-statements`: exchanges two adjacent simple statements of the same block, each
//! alone on a single line (trailing comments travel with their statement; blank or
//! comment lines between them stay put). Docstrings, `pass`, `global`/`nonlocal`,
//! `__future__` imports, pairs of imports and identical lines are skipped.

use rustpython_ast as ast;

use super::support::finish;
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::text::{short, swapped};
use crate::python::walk::is_docstring;
use crate::python::PyModule;

pub(crate) struct SwapStatements;

fn simple(stmt: &ast::Stmt) -> bool {
    match stmt {
        ast::Stmt::FunctionDef(_)
        | ast::Stmt::AsyncFunctionDef(_)
        | ast::Stmt::ClassDef(_)
        | ast::Stmt::For(_)
        | ast::Stmt::AsyncFor(_)
        | ast::Stmt::While(_)
        | ast::Stmt::If(_)
        | ast::Stmt::With(_)
        | ast::Stmt::AsyncWith(_)
        | ast::Stmt::Match(_)
        | ast::Stmt::Try(_)
        | ast::Stmt::TryStar(_)
        | ast::Stmt::Pass(_)
        // Declarations must precede every use of their names.
        | ast::Stmt::Global(_)
        | ast::Stmt::Nonlocal(_) => false,
        ast::Stmt::ImportFrom(i) => i.module.as_deref() != Some("__future__"),
        other => !is_docstring(other),
    }
}

fn is_import(stmt: &ast::Stmt) -> bool {
    matches!(stmt, ast::Stmt::Import(_) | ast::Stmt::ImportFrom(_))
}

impl Operator for SwapStatements {
    fn name(&self) -> &'static str {
        "swap-statements"
    }

    fn description(&self) -> &'static str {
        "exchanges two adjacent simple statements of the same block, each alone on a single line"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Restructure
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            let (first, Some(second)) = (site.stmt, site.block.get(site.index + 1)) else { continue };
            if !simple(first) || !simple(second) || (is_import(first) && is_import(second)) {
                continue;
            }
            let (Some(a), Some(b)) = (module.whole_lines(first), module.whole_lines(second)) else { continue };
            let text = &module.text;
            let (a_text, b_text) = (&text[a.clone()], &text[b.clone()]);
            let single = |line: &str| !line.trim_end_matches('\n').contains('\n');
            if !single(a_text) || !single(b_text) || a_text.trim() == b_text.trim() || a.end > b.start {
                continue;
            }
            out.push(mutation_at(
                self,
                module,
                &site.function,
                a.start..b.end,
                swapped(a_text, &text[a.end..b.start], b_text),
                format!("swap `{}` and `{}`", short(module.source(first)), short(module.source(second))),
            ));
        }
        finish(module, out)
    }
}
