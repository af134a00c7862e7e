//! `change-default`: changes a parameter's default value in a `def`: an integer by one
//! (`n` → `n + 1`, `n` → `n - 1`), `True` ↔ `False`, a non-empty string to the empty one
//! (same prefix and quotes). `None` and other defaults are left alone.

use rustpython_ast as ast;

use super::support::{defined_function, finish};
use crate::mutate::operator::{mutation_at, Mutation, Operator, OperatorKind};
use crate::python::PyModule;

pub(crate) struct ChangeDefault;

/// The replacement texts for a default value written `written`.
fn alternatives(value: &ast::Expr, written: &str) -> Vec<String> {
    match value {
        ast::Expr::Constant(c) => match &c.value {
            ast::Constant::Bool(b) => vec![if *b { "False" } else { "True" }.to_string()],
            ast::Constant::Int(_) => integer(written, 1),
            ast::Constant::Str(s) if !s.is_empty() => empty_string(written).into_iter().collect(),
            ast::Constant::Bytes(b) if !b.is_empty() => empty_string(written).into_iter().collect(),
            _ => Vec::new(),
        },
        // `-1` is a negated literal.
        ast::Expr::UnaryOp(u) if u.op == ast::UnaryOp::USub => match u.operand.as_ref() {
            ast::Expr::Constant(c) if matches!(c.value, ast::Constant::Int(_)) => {
                let digits = written.trim_start_matches('-').trim_start();
                integer(digits, -1)
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// `n ± 1` for a decimal literal `digits` of sign `sign`.
fn integer(digits: &str, sign: i64) -> Vec<String> {
    let Ok(magnitude) = digits.replace('_', "").parse::<i64>() else { return Vec::new() };
    let Some(value) = magnitude.checked_mul(sign) else { return Vec::new() };
    [value.checked_add(1), value.checked_sub(1)].into_iter().flatten().map(|n| n.to_string()).collect()
}

/// The empty string literal with the same prefix and quotes as `written`.
fn empty_string(written: &str) -> Option<String> {
    let body = written.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let prefix = &written[..written.len() - body.len()];
    let quote = if body.starts_with("\"\"\"") || body.starts_with("'''") {
        &body[..3]
    } else if body.starts_with('"') || body.starts_with('\'') {
        &body[..1]
    } else {
        return None;
    };
    Some(format!("{prefix}{quote}{quote}"))
}

impl Operator for ChangeDefault {
    fn name(&self) -> &'static str {
        "change-default"
    }

    fn description(&self) -> &'static str {
        "changes a parameter's default value in a `def`: an integer by one, `True` ↔ `False`, a non-empty string to the empty one"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Alter
    }
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation> {
        let mut out = Vec::new();
        let sites = module.statements();
        for (index, site) in sites.iter().enumerate() {
            let args = match site.stmt {
                ast::Stmt::FunctionDef(d) => &d.args,
                ast::Stmt::AsyncFunctionDef(d) => &d.args,
                _ => continue,
            };
            let function = defined_function(&sites, index);
            for arg in args.posonlyargs.iter().chain(&args.args).chain(&args.kwonlyargs) {
                let Some(default) = arg.default.as_deref() else { continue };
                let written = module.source(default);
                for replacement in alternatives(default, written) {
                    out.push(mutation_at(
                        self,
                        module,
                        &function,
                        PyModule::span(default),
                        replacement.clone(),
                        format!("default of `{}`: `{written}` → `{replacement}`", arg.def.arg),
                    ));
                }
            }
        }
        finish(module, out)
    }
}
