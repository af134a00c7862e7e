//! The AST checks that need one version of a file only: `unreachable` and
//! `overwritten`. Both are computed on the tree and on gold, and only the tree's excess
//! counts ([`super::finding::subtract`]), so code gold has too (a dead statement kept on purpose)
//! is never charged.
//!
//! - `unreachable`: a statement that follows a `return`, `raise`, `continue` or `break`
//!   in the same block (the first such statement of the block; named by its function).
//!   The dead second `return` a union of two edited `return` lines leaves.
//! - `overwritten`: an assignment to a name that the very next statement of the same
//!   block assigns again without reading it (`x = a * b` then `x = a / b`), unless the
//!   first value is a literal constant (`total = 0`, `items = []`: an initial value
//!   overwritten on purpose).

use rustpython_ast::{self as ast, Ranged};

use super::finding::{Finding, MODULE};
use crate::python::walk::expr_children;
use crate::python::PyModule;

/// Every `unreachable` and `overwritten` finding of `module`.
pub(crate) fn findings(module: &PyModule) -> Vec<Finding> {
    let mut found = Vec::new();
    for site in module.statements() {
        if site.index != 0 {
            continue;
        }
        let function = site.function.as_deref().unwrap_or(MODULE);
        found.extend(unreachable(module, function, site.block));
        found.extend(overwritten(module, function, site.block));
    }
    found
}

/// The first statement of `block` after one that leaves it.
fn unreachable(module: &PyModule, function: &str, block: &[ast::Stmt]) -> Option<Finding> {
    let exit = block.iter().position(|stmt| {
        matches!(stmt, ast::Stmt::Return(_) | ast::Stmt::Raise(_) | ast::Stmt::Continue(_) | ast::Stmt::Break(_))
    })?;
    let dead = block.get(exit + 1)?;
    let line = module.line_of(dead.range().start().to_usize());
    let exit_line = module.line_of(block[exit].range().start().to_usize());
    let keyword = match &block[exit] {
        ast::Stmt::Return(_) => "return",
        ast::Stmt::Raise(_) => "raise",
        ast::Stmt::Continue(_) => "continue",
        _ => "break",
    };
    Some(Finding {
        path: module.path.clone(),
        rule: "unreachable".to_string(),
        name: function.to_string(),
        line,
        message: format!("unreachable in `{function}`: it follows the `{keyword}` on line {exit_line}"),
    })
}

/// Every assignment of `block` whose name the next statement assigns again unread.
fn overwritten(module: &PyModule, function: &str, block: &[ast::Stmt]) -> Vec<Finding> {
    block
        .windows(2)
        .filter_map(|pair| {
            let (name, first) = assigned(&pair[0])?;
            let (again, second) = assigned(&pair[1])?;
            if name != again || is_literal(first) || reads(second, name) {
                return None;
            }
            let line = module.line_of(pair[1].range().start().to_usize());
            let first_line = module.line_of(pair[0].range().start().to_usize());
            Some(Finding {
                path: module.path.clone(),
                rule: "overwritten".to_string(),
                name: function.to_string(),
                line,
                message: format!(
                    "`{name}` assigned on line {first_line} is assigned again before it is read (in `{function}`)"
                ),
            })
        })
        .collect()
}

/// The name and value of `name = value` (one plain name target, annotated or not).
fn assigned(stmt: &ast::Stmt) -> Option<(&str, &ast::Expr)> {
    let (target, value) = match stmt {
        ast::Stmt::Assign(a) if a.targets.len() == 1 => (&a.targets[0], a.value.as_ref()),
        ast::Stmt::AnnAssign(a) => (a.target.as_ref(), a.value.as_deref()?),
        _ => return None,
    };
    match target {
        ast::Expr::Name(name) => Some((name.id.as_str(), value)),
        _ => None,
    }
}

/// Whether `expr` is a literal constant: a constant, a negated one, or a container of
/// literals (`[]`, `{}`, `(0, 0)`).
fn is_literal(expr: &ast::Expr) -> bool {
    match expr {
        ast::Expr::Constant(_) => true,
        ast::Expr::UnaryOp(op) => matches!(op.operand.as_ref(), ast::Expr::Constant(_)),
        ast::Expr::List(l) => l.elts.iter().all(is_literal),
        ast::Expr::Tuple(t) => t.elts.iter().all(is_literal),
        ast::Expr::Set(s) => s.elts.iter().all(is_literal),
        ast::Expr::Dict(d) => d.keys.iter().flatten().chain(&d.values).all(is_literal),
        ast::Expr::Call(call) => {
            // `dict()`, `list()`, `set()`: empty containers by name.
            call.args.is_empty()
                && call.keywords.is_empty()
                && matches!(call.func.as_ref(), ast::Expr::Name(n) if ["dict", "list", "set", "tuple"].contains(&n.id.as_str()))
        }
        _ => false,
    }
}

/// Whether `expr` reads the name `name` anywhere inside it.
fn reads(expr: &ast::Expr, name: &str) -> bool {
    let mut stack = vec![expr];
    while let Some(expr) = stack.pop() {
        if matches!(expr, ast::Expr::Name(n) if n.id.as_str() == name) {
            return true;
        }
        stack.extend(expr_children(expr));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Vec<(String, String, usize)> {
        let module = PyModule::parse("m.py", text).unwrap();
        findings(&module).into_iter().map(|f| (f.rule, f.name, f.line)).collect()
    }

    fn one(rule: &str, name: &str, line: usize) -> Vec<(String, String, usize)> {
        vec![(rule.to_string(), name.to_string(), line)]
    }

    #[test]
    fn a_statement_after_leaving_its_block_is_unreachable() {
        assert_eq!(rules("def f(a):\n    return a * 2\n    return a / 2\n"), one("unreachable", "f", 3));
        let looped =
            "class C:\n    def m(self, xs):\n        for x in xs:\n            continue\n            print(x)\n";
        assert_eq!(rules(looped), one("unreachable", "C.m", 5));
        assert_eq!(rules("raise SystemExit(1)\nprint('x')\n"), one("unreachable", MODULE, 2));
        let guarded = "def f(a):\n    if a:\n        return 1\n    return 2\n";
        assert_eq!(rules(guarded), Vec::new(), "an early return in a branch is reachable code after it");
    }

    #[test]
    fn an_assignment_overwritten_unread_is_found_unless_it_is_a_literal() {
        let twice = "def f(a, b):\n    x = a * b\n    x = a / b\n    return x\n";
        assert_eq!(rules(twice), one("overwritten", "f", 3));
        assert_eq!(rules("def f(a):\n    x = 0\n    x = a + 1\n    return x\n"), Vec::new());
        assert_eq!(rules("def f(a):\n    x = []\n    x = list(a)\n    return x\n"), Vec::new());
        assert_eq!(rules("def f(a):\n    x = g(a)\n    x = h(x)\n    return x\n"), Vec::new(), "read");
        assert_eq!(rules("def f(a):\n    x = g(a)\n    y = h(a)\n    return x, y\n"), Vec::new());
    }
}
