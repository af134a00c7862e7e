//! `unwrap-block`: replaces a `with ...:` block, or a `try: ... except ...:` without
//! `else`/`finally`, by its body dedented by one level. The indentation step is read
//! from the text; the block is left alone unless every body line carries it (or is
//! blank), and when its body holds a multi-line string literal (whose contents a
//! dedent would change).

use rustpython_ast as ast;

use super::support::finish;
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::text::block_lines;
use crate::python::walk::{owned_exprs, walk_stmts};
use crate::python::PyModule;

pub(crate) struct UnwrapBlock;

/// `body` (whole lines) with `step` removed after `indent` on every line.
fn dedent(body: &str, indent: &str, step: usize) -> Option<String> {
    let inner = indent.len() + step;
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        if line.trim().is_empty() {
            out.push_str(line);
        } else {
            let rest = line.get(inner..)?;
            out.push_str(indent);
            out.push_str(rest);
        }
    }
    Some(out)
}

/// Whether a block holds a string literal spanning lines.
fn has_multiline_string(module: &PyModule, block: &[ast::Stmt]) -> bool {
    let mut stmts = Vec::new();
    walk_stmts(block, &mut stmts);
    stmts.iter().flat_map(|s| owned_exprs(s)).any(|e| {
        matches!(e, ast::Expr::JoinedStr(_))
            || matches!(e, ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Str(_) | ast::Constant::Bytes(_)))
    } && module.source(e).contains('\n'))
}

impl Operator for UnwrapBlock {
    fn name(&self) -> &'static str {
        "unwrap-block"
    }

    fn description(&self) -> &'static str {
        "replaces a `with` block, or a `try`/`except` without `else`/`finally`, by its body dedented by one level"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Restructure
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        for site in module.statements() {
            let (body, what) = match site.stmt {
                ast::Stmt::With(s) => (&s.body, "with"),
                ast::Stmt::AsyncWith(s) => (&s.body, "async with"),
                ast::Stmt::Try(s) if !s.handlers.is_empty() && s.orelse.is_empty() && s.finalbody.is_empty() => {
                    (&s.body, "try")
                }
                _ => continue,
            };
            let (Some(lines), Some(body_lines), Some(first)) =
                (module.whole_lines(site.stmt), block_lines(module, body), body.first())
            else {
                continue;
            };
            let indent = module.indent_at(lines.start);
            let inner = module.indent_at(PyModule::span(first).start);
            if inner.len() <= indent.len() || !inner.starts_with(indent) || has_multiline_string(module, body) {
                continue;
            }
            let text = &module.text[body_lines];
            // Every non-blank line must carry the body's indentation.
            if !text.split_inclusive('\n').all(|line| line.trim().is_empty() || line.starts_with(inner)) {
                continue;
            }
            let Some(replacement) = dedent(text, indent, inner.len() - indent.len()) else { continue };
            out.push(mutation_at(
                self,
                module,
                &site.function,
                lines,
                replacement,
                format!("unwrap the `{what}` block"),
            ));
        }
        finish(module, out)
    }
}
