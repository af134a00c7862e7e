//! `repeated-block`: a block of code a function runs more often than gold's version of
//! that function does, the trace of a union that kept both sides' versions of it.
//!
//! Two shapes of repetition count, each within one function (`Class.method`, nested
//! functions apart, `<module>` for top-level code):
//! - a **run of two consecutive statements** of different shapes, of one block, that
//!   occurs again, without overlapping, elsewhere in the function (two alike statements
//!   in a row are a list that both sides may lengthen: appends, a dispatch of guards);
//! - a **`for` loop over the same iterable** as another loop of the function (its
//!   target's names aside): the same collection walked twice, as in the union of
//!   processor-cb6c4ece29, where one side's loop was kept above the other's.
//!
//! Statements are compared by shape ([`Shape`]): positions, literal values and
//! operators folded away, names kept, so `x = a * 2; y = x` and `x = a / 3; y = x` are
//! the same run. A function is charged when it holds some repetition at least twice and
//! more often than gold's version of it (a function gold has not counts as holding
//! none); the check compares the tree with gold directly, so gold is never charged.

use std::collections::BTreeMap;
use std::convert::Infallible;

use rustpython_ast::text_size::TextRange;
use rustpython_ast::{self as ast, Fold, Ranged};

use super::finding::{Finding, MODULE};
use crate::python::PyModule;

/// What repeats in a function: a pair of statement shapes, or a loop's iterable.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Run(String, String),
    Loop(String),
}

/// Where a repetition occurs: the block (its first statement's offset) and the index of
/// its first statement in that block; its line.
#[derive(Debug, Clone, Copy)]
struct Occurrence<'a> {
    block: usize,
    index: usize,
    line: usize,
    /// The loop's iterable as written (loops only).
    iterable: &'a str,
}

/// Every function's repetitions: function → key → occurrences, in source order.
type Repetitions<'a> = BTreeMap<String, BTreeMap<Key, Vec<Occurrence<'a>>>>;

/// The `repeated-block` findings of `tree` against `gold` (one per function at most).
pub(crate) fn findings(tree: &PyModule, gold: &PyModule) -> Vec<Finding> {
    let gold = repetitions(gold);
    let mut found = Vec::new();
    for (function, keys) in repetitions(tree) {
        let excess = keys
            .iter()
            .filter_map(|(key, occurrences)| {
                let counted = distinct(key, occurrences);
                let in_gold = gold.get(&function).and_then(|g| g.get(key)).map_or(0, |o| distinct(key, o).len());
                (counted.len() >= 2 && counted.len() > in_gold).then(|| (counted[1], counted[0].line, key))
            })
            .min_by_key(|(second, _, _)| second.line);
        if let Some((second, first, key)) = excess {
            let line = second.line;
            let what = match key {
                Key::Run(..) => format!("the run of statements starting on line {first} repeats on line {line}"),
                Key::Loop(_) => format!("a second `for` loop over `{}` (the first on line {first})", second.iterable),
            };
            found.push(Finding {
                path: tree.path.clone(),
                rule: "repeated-block".to_string(),
                name: function.clone(),
                line,
                message: format!("in `{function}`, {what}: more often than gold's version of it"),
            });
        }
    }
    found
}

/// The occurrences of `key` that do not overlap an earlier counted one (a run of three
/// equal statements holds their pair once; loops never overlap).
fn distinct<'a>(key: &Key, occurrences: &[Occurrence<'a>]) -> Vec<Occurrence<'a>> {
    let span = match key {
        Key::Run(..) => 2,
        Key::Loop(_) => 1,
    };
    let mut counted: Vec<Occurrence> = Vec::new();
    for occurrence in occurrences {
        let overlaps =
            counted.last().is_some_and(|last| last.block == occurrence.block && occurrence.index < last.index + span);
        if !overlaps {
            counted.push(*occurrence);
        }
    }
    counted
}

/// Every run of two statements and every `for` loop of `module`, by function.
fn repetitions(module: &PyModule) -> Repetitions<'_> {
    let mut out = Repetitions::new();
    for site in module.statements() {
        let function = site.function.clone().unwrap_or_else(|| MODULE.to_string());
        let keys = out.entry(function).or_default();
        let block = site.block.first().map_or(0, |s| s.range().start().to_usize());
        let line = module.line_of(site.stmt.range().start().to_usize());
        let occurrence = Occurrence { block, index: site.index, line, iterable: "" };
        if let ast::Stmt::For(for_) = site.stmt {
            let iterable = module.source(for_.iter.as_ref());
            keys.entry(Key::Loop(Shape::of_expr(&for_.iter))).or_default().push(Occurrence { iterable, ..occurrence });
        }
        if let Some(next) = site.block.get(site.index + 1) {
            let (first, second) = (Shape::of_stmt(site.stmt), Shape::of_stmt(next));
            // Two alike statements in a row are a list (appends, a dispatch of `if op
            // == …: return …` guards), which both sides may lengthen: not a block.
            if first != second {
                keys.entry(Key::Run(first, second)).or_default().push(occurrence);
            }
        }
    }
    out
}

/// Folds a syntax tree into its shape: positions dropped, every literal made `None`,
/// every operator the same one, comparison operators left out; written out as text
/// (the debug form of the folded tree) to be a map key.
struct Shape;

impl Shape {
    fn of_stmt(stmt: &ast::Stmt) -> String {
        let Ok(bare) = Shape.fold_stmt(stmt.clone());
        format!("{bare:?}")
    }

    fn of_expr(expr: &ast::Expr) -> String {
        let Ok(bare) = Shape.fold_expr(expr.clone());
        format!("{bare:?}")
    }
}

impl Fold<TextRange> for Shape {
    type TargetU = ();
    type Error = Infallible;
    type UserContext = ();

    fn will_map_user(&mut self, _: &TextRange) {}

    fn map_user(&mut self, _: TextRange, _: ()) -> Result<(), Infallible> {
        Ok(())
    }

    fn fold_expr_constant(&mut self, _: ast::ExprConstant) -> Result<ast::ExprConstant<()>, Infallible> {
        Ok(ast::ExprConstant { range: (), value: ast::Constant::None, kind: None })
    }

    fn fold_expr_compare(&mut self, node: ast::ExprCompare) -> Result<ast::ExprCompare<()>, Infallible> {
        let left = Box::new(self.fold_expr(*node.left)?);
        let comparators = node.comparators.into_iter().map(|c| self.fold_expr(c)).collect::<Result<_, _>>()?;
        Ok(ast::ExprCompare { range: (), left, ops: Vec::new(), comparators })
    }

    fn fold_boolop(&mut self, _: ast::BoolOp) -> Result<ast::BoolOp, Infallible> {
        Ok(ast::BoolOp::And)
    }

    fn fold_operator(&mut self, _: ast::Operator) -> Result<ast::Operator, Infallible> {
        Ok(ast::Operator::Add)
    }

    fn fold_unaryop(&mut self, _: ast::UnaryOp) -> Result<ast::UnaryOp, Infallible> {
        Ok(ast::UnaryOp::Not)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeated(tree: &str, gold: &str) -> Vec<(String, usize)> {
        let (tree, gold) = (PyModule::parse("m.py", tree).unwrap(), PyModule::parse("m.py", gold).unwrap());
        findings(&tree, &gold).into_iter().map(|f| (f.name, f.line)).collect()
    }

    #[test]
    fn a_run_repeated_more_often_than_in_gold_is_found() {
        let gold = "def f(a):\n    x = a * 2\n    log(x)\n    return x\n";
        let union = "def f(a):\n    x = a * 2\n    log(x)\n    x = a / 3\n    log(x)\n    return x\n";
        assert_eq!(repeated(union, gold), vec![("f".to_string(), 4)]);
        assert_eq!(repeated(union, union), Vec::new(), "gold repeats it as often");
        assert_eq!(repeated(gold, gold), Vec::new());
    }

    #[test]
    fn a_list_of_alike_statements_is_not_a_repeated_block() {
        let gold = "def f(out):\n    out.append(1)\n    out.append(2)\n";
        let four = "def f(out):\n    out.append(1)\n    out.append(2)\n    out.append(3)\n    out.append(4)\n";
        assert_eq!(repeated(four, gold), Vec::new());
        let dispatch = |ops: &[&str]| {
            let arms: String =
                ops.iter().map(|op| format!("    if op == '{op}':\n        return a {op} b\n")).collect();
            format!("def compare(a, op, b):\n{arms}    raise ValueError(op)\n")
        };
        let gold = dispatch(&["==", "!=", "<"]);
        assert_eq!(repeated(&dispatch(&["==", "!=", "<", ">", ">="]), &gold), Vec::new());
    }

    #[test]
    fn a_second_loop_over_the_same_iterable_is_found() {
        let gold = "def f(xs):\n    for i, x in enumerate(xs):\n        check(x)\n        use(i)\n";
        let union = "def f(xs):\n    for i, x in enumerate(xs):\n        check(x)\n    for j, x in enumerate(xs):\n        use(j)\n";
        assert_eq!(repeated(union, gold), vec![("f".to_string(), 4)]);
        let other = "def f(xs):\n    for i, x in enumerate(xs):\n        check(x)\n    for y in reversed(xs):\n        use(y)\n";
        assert_eq!(repeated(other, gold), Vec::new());
    }
}
