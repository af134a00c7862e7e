//! The duplicated-logic check behind the `duplication` reward component.
//!
//! A resolution duplicates logic when a statement (or a function or class) from `ours`
//! and its structural twin from `theirs` are both present where the gold merge has
//! fewer of them: typically the union of two sides that each changed the same line.
//!
//! Statements are compared by **role** inside their function: returning from it,
//! assigning a given target, calling a given function, defining a given function or
//! class; an `if`/`for`/`while`/`with`/`try` by the roles of its bodies (its condition
//! may be the very thing the sides disagree on); any other statement by its syntax
//! tree with positions, literal values and operators folded away ([`Abstract`]), so
//! that statements compare structurally. So
//! `return a * b` and `return a / b` are twins, as are `x = round(v, 1)` and
//! `x = compute(v)`. Statements without logic of their own (`pass`, `break`,
//! `continue`, imports, docstrings) are not counted.
//!
//! A role is reported when the resolution fills it at least twice in one function,
//! more often than gold does, and both the ours and the theirs version of the file
//! fill it. The check is structural, not semantic: a resolution that is correct but
//! shaped unlike gold (say, an extra early `return`) can be flagged.

use std::convert::Infallible;

use rustpython_ast::text_size::TextRange;
use rustpython_ast::{self as ast, Fold, Ranged};

use crate::python::walk::{child_blocks, is_docstring};
use crate::python::PyModule;

/// Syntax trees without positions.
type Expr = ast::Expr<()>;
type Stmt = ast::Stmt<()>;

/// The structural role of a counted statement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Role {
    Def(String),
    Class(String),
    Return,
    Assign(Vec<Expr>),
    AnnAssign(Expr),
    AugAssign(Expr),
    Call(Expr),
    Expr(Expr),
    /// An `if`/`for`/`while`/`with`/`try`/`match` by the roles of its bodies.
    Compound {
        kind: &'static str,
        bodies: Vec<Vec<Role>>,
    },
    /// Any other statement, or a compound one whose bodies count nothing.
    Other(Stmt),
}

/// A role inside the function holding it (`Class.method`, empty at module level).
#[derive(Debug, Clone, PartialEq)]
struct Key {
    function: String,
    role: Role,
}

/// The three reference versions of one conflicted file, reduced to roles.
#[derive(Debug, Clone)]
pub struct Twins {
    path: String,
    /// The keys of ours and of theirs, each once.
    ours: Vec<Key>,
    theirs: Vec<Key>,
    /// Every key of gold, with how often gold fills it.
    gold: Vec<(Key, usize)>,
}

impl Twins {
    /// Roles of the ours, theirs and gold texts of `path`; `None` when one of them does
    /// not parse (then no resolution of this file is checked).
    pub fn new(path: &str, ours: &str, theirs: &str, gold: &str) -> Option<Twins> {
        let distinct =
            |text: &str| keys(path, text).map(|keyed| counted(keyed).into_iter().map(|(key, _)| key).collect());
        let gold = counted(keys(path, gold)?).into_iter().map(|(key, lines)| (key, lines.len())).collect();
        Some(Twins { path: path.to_string(), ours: distinct(ours)?, theirs: distinct(theirs)?, gold })
    }

    /// A one-line description of the first duplicated statement in `resolution`, or
    /// `None` when it has none (or does not parse: syntax is another component).
    pub fn duplicated(&self, resolution: &str) -> Option<String> {
        let (second, first) = counted(keys(&self.path, resolution)?)
            .into_iter()
            .filter(|(key, lines)| {
                let in_gold = self.gold.iter().find(|(k, _)| k == key).map_or(0, |(_, n)| *n);
                lines.len() >= 2 && lines.len() > in_gold && self.ours.contains(key) && self.theirs.contains(key)
            })
            .map(|(_, lines)| (lines[1], lines[0]))
            .min()?;
        Some(format!(
            "{}: line {second} duplicates the logic of line {first} (both sides' versions kept where the merge needs one)",
            self.path
        ))
    }
}

/// Every counted statement's key with its line, or `None` if `text` does not parse.
fn keys(path: &str, text: &str) -> Option<Vec<(Key, usize)>> {
    let module = PyModule::parse(path, text).ok()?;
    let keyed = module
        .statements()
        .into_iter()
        .filter_map(|site| {
            let role = role(site.stmt)?;
            let line = module.line_of(site.stmt.range().start().to_usize());
            Some((Key { function: site.function.unwrap_or_default(), role }, line))
        })
        .collect();
    Some(keyed)
}

/// The keys in order of first appearance, each with the lines that fill it.
fn counted(keyed: Vec<(Key, usize)>) -> Vec<(Key, Vec<usize>)> {
    let mut groups: Vec<(Key, Vec<usize>)> = Vec::new();
    for (key, line) in keyed {
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, lines)) => lines.push(line),
            None => groups.push((key, vec![line])),
        }
    }
    groups
}

/// The structural role of a statement, or `None` for statements without logic.
pub(crate) fn role(stmt: &ast::Stmt) -> Option<Role> {
    let role = match stmt {
        ast::Stmt::Pass(_)
        | ast::Stmt::Break(_)
        | ast::Stmt::Continue(_)
        | ast::Stmt::Import(_)
        | ast::Stmt::ImportFrom(_)
        | ast::Stmt::Global(_)
        | ast::Stmt::Nonlocal(_) => return None,
        s if is_docstring(s) => return None,
        ast::Stmt::FunctionDef(def) => Role::Def(def.name.to_string()),
        ast::Stmt::AsyncFunctionDef(def) => Role::Def(def.name.to_string()),
        ast::Stmt::ClassDef(def) => Role::Class(def.name.to_string()),
        ast::Stmt::Return(_) => Role::Return,
        ast::Stmt::Assign(a) => Role::Assign(a.targets.iter().map(bare_expr).collect()),
        ast::Stmt::AnnAssign(a) => Role::AnnAssign(bare_expr(&a.target)),
        ast::Stmt::AugAssign(a) => Role::AugAssign(bare_expr(&a.target)),
        ast::Stmt::Expr(e) => match e.value.as_ref() {
            ast::Expr::Call(call) => Role::Call(bare_expr(&call.func)),
            other => Role::Expr(bare_expr(other)),
        },
        compound => match compound_kind(compound) {
            Some(kind) if !child_blocks(compound).is_empty() => {
                let bodies: Vec<Vec<Role>> =
                    child_blocks(compound).iter().map(|block| block.iter().filter_map(role).collect()).collect();
                if bodies.iter().all(Vec::is_empty) {
                    Role::Other(bare_stmt(compound))
                } else {
                    Role::Compound { kind, bodies }
                }
            }
            _ => Role::Other(bare_stmt(compound)),
        },
    };
    Some(role)
}

/// The name of a statement that holds blocks of statements (functions and classes
/// aside).
fn compound_kind(stmt: &ast::Stmt) -> Option<&'static str> {
    Some(match stmt {
        ast::Stmt::If(_) => "if",
        ast::Stmt::For(_) => "for",
        ast::Stmt::AsyncFor(_) => "async for",
        ast::Stmt::While(_) => "while",
        ast::Stmt::With(_) => "with",
        ast::Stmt::AsyncWith(_) => "async with",
        ast::Stmt::Try(_) => "try",
        ast::Stmt::TryStar(_) => "try*",
        ast::Stmt::Match(_) => "match",
        _ => return None,
    })
}

fn bare_expr(expr: &ast::Expr) -> Expr {
    let Ok(bare) = Abstract.fold_expr(expr.clone());
    bare
}

fn bare_stmt(stmt: &ast::Stmt) -> Stmt {
    let Ok(bare) = Abstract.fold_stmt(stmt.clone());
    bare
}

/// Folds a syntax tree into its shape: positions dropped, every literal made `None`,
/// every operator the same one, comparison operators left out.
struct Abstract;

impl Fold<TextRange> for Abstract {
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
    use rustpython_parser::Parse;

    fn role_of(text: &str) -> Role {
        let suite = ast::Suite::parse(text, "t.py").unwrap();
        role(&suite[0]).unwrap()
    }

    #[test]
    fn roles_and_abstracted_shapes() {
        assert_eq!(role_of("return a + b\n"), role_of("return None\n"));
        assert_eq!(role_of("x = round(v, 1)\n"), role_of("x = compute(v)\n"));
        assert_eq!(role_of("log(a, 1)\n"), role_of("log(b)\n"));
        assert_ne!(role_of("x = 1\n"), role_of("y = 1\n"));
        assert_eq!(role_of("raise E(a + 1)\n"), role_of("raise E(a - 2)\n"));
        assert_eq!(role_of("if a < 1:\n    raise E('x')\n"), role_of("if not a:\n    raise E('y')\n"));
        assert_ne!(role_of("raise E(a)\n"), role_of("raise F(a)\n"));
        assert_eq!(role_of("raise E(a)\n"), role_of("\n\nraise E(a)\n"), "node positions are dropped");
        assert_eq!(role_of("assert a < b <= c\n"), role_of("assert a == b != c\n"));
        assert_ne!(role_of("assert -a\n"), role_of("assert a\n"));
    }
}
