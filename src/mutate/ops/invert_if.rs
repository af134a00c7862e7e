//! `invert-if`: `if c: A else: B` → `if not (c): B else: A` for an `if` (or `elif`)
//! with a plain `else` block. The two blocks sit at the same indentation, so their
//! exact line ranges are exchanged; the header lines and anything between the blocks
//! (the `else:` line, comments) stay where they are.

use rustpython_ast as ast;

use super::support::finish;
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::text::{block_lines, is_elif, negated, short, swapped};
use crate::python::PyModule;

pub(crate) struct InvertIf;

impl Operator for InvertIf {
    fn name(&self) -> &'static str {
        "invert-if"
    }

    fn description(&self) -> &'static str {
        "`if c: A else: B` → `if not (c): B else: A` for an `if` (or `elif`) with a plain `else` block"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Restructure
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            let ast::Stmt::If(stmt) = site.stmt else { continue };
            let (Some(first_body), Some(first_else)) = (stmt.body.first(), stmt.orelse.first()) else { continue };
            if stmt.orelse.len() == 1 && is_elif(module, first_else) {
                continue;
            }
            let (Some(body), Some(orelse)) = (block_lines(module, &stmt.body), block_lines(module, &stmt.orelse))
            else {
                continue;
            };
            let test = PyModule::span(stmt.test.as_ref());
            if !(test.end <= body.start && body.end <= orelse.start) {
                continue;
            }
            let body_start = PyModule::span(first_body).start;
            let else_start = PyModule::span(first_else).start;
            if module.indent_at(body_start) != module.indent_at(else_start) {
                continue;
            }
            let text = &module.text;
            let (Some(header), Some(middle)) = (text.get(test.end..body.start), text.get(body.end..orelse.start))
            else {
                continue;
            };
            let condition = negated(module, &stmt.test);
            let blocks = swapped(&text[body.clone()], middle, &text[orelse.clone()]);
            out.push(mutation_at(
                self,
                module,
                &site.function,
                test.start..orelse.end,
                format!("{condition}{header}{blocks}"),
                format!("invert `if {}` and swap its branches", short(module.source(stmt.test.as_ref()))),
            ));
        }
        finish(module, out)
    }
}
