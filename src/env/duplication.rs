//! The duplicated-logic check behind the `duplication` reward component.
//!
//! A resolution duplicates logic when a statement (or a function or class) from `ours`
//! and its structural twin from `theirs` are both present where the gold merge has
//! fewer of them: typically the union of two sides that each changed the same line.
//!
//! Statements are compared by **role** inside their function: returning from it,
//! assigning a given target, calling a given function, defining a given function or
//! class; an `if`/`for`/`while`/`with`/`try` by the roles of its bodies (its condition
//! may be the very thing the sides disagree on); any other statement by its parsed
//! shape (rustpython) with positions, literal values and operators abstracted away. So
//! `return a * b` and `return a / b` are twins, as are `x = round(v, 1)` and
//! `x = compute(v)`. Statements without logic of their own (`pass`, `break`,
//! `continue`, imports, docstrings) are not counted.
//!
//! A role is reported when the resolution fills it at least twice in one function,
//! more often than gold does, and both the ours and the theirs version of the file
//! fill it. The check is structural, not semantic: a resolution that is correct but
//! shaped unlike gold (say, an extra early `return`) can be flagged.

use std::collections::{BTreeMap, HashMap, HashSet};

use rustpython_ast::{self as ast, Ranged};

use crate::python::walk::{child_blocks, is_docstring};
use crate::python::PyModule;

/// The three reference versions of one conflicted file, reduced to shapes.
#[derive(Debug, Clone)]
pub struct Twins {
    path: String,
    ours: HashSet<String>,
    theirs: HashSet<String>,
    gold: HashMap<String, usize>,
}

impl Twins {
    /// Shapes of the ours, theirs and gold texts of `path`; `None` when one of them does
    /// not parse (then no resolution of this file is checked).
    pub fn new(path: &str, ours: &str, theirs: &str, gold: &str) -> Option<Twins> {
        let set = |text: &str| shapes(path, text).map(|s| s.into_iter().map(|(k, _)| k).collect::<HashSet<_>>());
        let mut gold_counts = HashMap::new();
        for (key, _) in shapes(path, gold)? {
            *gold_counts.entry(key).or_insert(0) += 1;
        }
        Some(Twins { path: path.to_string(), ours: set(ours)?, theirs: set(theirs)?, gold: gold_counts })
    }

    /// A one-line description of the first duplicated statement in `resolution`, or
    /// `None` when it has none (or does not parse: syntax is another component).
    pub fn duplicated(&self, resolution: &str) -> Option<String> {
        let module = PyModule::parse(&self.path, resolution).ok()?;
        let mut lines: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (key, line) in keyed(&module) {
            lines.entry(key).or_default().push(line);
        }
        let mut found: Vec<(usize, usize)> = lines
            .iter()
            .filter(|(key, at)| {
                at.len() >= 2
                    && at.len() > self.gold.get(*key).copied().unwrap_or(0)
                    && self.ours.contains(*key)
                    && self.theirs.contains(*key)
            })
            .map(|(_, at)| (at[1], at[0]))
            .collect();
        found.sort();
        let (second, first) = found.first()?;
        Some(format!(
            "{}: line {second} duplicates the logic of line {first} (both sides' versions kept where the merge needs one)",
            self.path
        ))
    }
}

/// Every counted statement's key with its line, or `None` if `text` does not parse.
fn shapes(path: &str, text: &str) -> Option<Vec<(String, usize)>> {
    Some(keyed(&PyModule::parse(path, text).ok()?))
}

/// `function::role` of every counted statement, with its line.
fn keyed(module: &PyModule) -> Vec<(String, usize)> {
    module
        .statements()
        .into_iter()
        .filter_map(|site| {
            let role = shape(site.stmt)?;
            let line = module.line_of(site.stmt.range().start().to_usize());
            Some((format!("{}::{role}", site.function.as_deref().unwrap_or("")), line))
        })
        .collect()
}

/// The structural role of a statement, or `None` for statements without logic.
pub fn shape(stmt: &ast::Stmt) -> Option<String> {
    match stmt {
        ast::Stmt::Pass(_)
        | ast::Stmt::Break(_)
        | ast::Stmt::Continue(_)
        | ast::Stmt::Import(_)
        | ast::Stmt::ImportFrom(_)
        | ast::Stmt::Global(_)
        | ast::Stmt::Nonlocal(_) => None,
        s if is_docstring(s) => None,
        ast::Stmt::FunctionDef(def) => Some(format!("def {}", def.name)),
        ast::Stmt::AsyncFunctionDef(def) => Some(format!("def {}", def.name)),
        ast::Stmt::ClassDef(def) => Some(format!("class {}", def.name)),
        ast::Stmt::Return(_) => Some("return".to_string()),
        ast::Stmt::Assign(a) => Some(format!("assign {}", abstract_debug(&format!("{:?}", a.targets)))),
        ast::Stmt::AnnAssign(a) => Some(format!("assign {}", abstract_debug(&format!("{:?}", a.target)))),
        ast::Stmt::AugAssign(a) => Some(format!("augassign {}", abstract_debug(&format!("{:?}", a.target)))),
        ast::Stmt::Expr(e) => match e.value.as_ref() {
            ast::Expr::Call(call) => Some(format!("call {}", abstract_debug(&format!("{:?}", call.func)))),
            other => Some(abstract_debug(&format!("{other:?}"))),
        },
        compound if !child_blocks(compound).is_empty() => {
            let bodies: Vec<String> = child_blocks(compound)
                .iter()
                .map(|block| block.iter().filter_map(shape).collect::<Vec<_>>().join("; "))
                .collect();
            if bodies.iter().all(String::is_empty) {
                return Some(abstract_debug(&format!("{compound:?}")));
            }
            let kind = format!("{compound:?}");
            let kind = kind.split('(').next().unwrap_or("Compound");
            Some(format!("{kind}[{}]", bodies.join(" | ")))
        }
        other => Some(abstract_debug(&format!("{other:?}"))),
    }
}

/// Rewrites a node's `Debug` text: drops `range: a..b`, collapses every constant to
/// `Const`, every operator to `_`. String literals inside are copied untouched.
pub fn abstract_debug(debug: &str) -> String {
    let bytes = debug.as_bytes();
    let mut out = String::with_capacity(debug.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &debug[i..];
        let after_space = i > 0 && bytes[i - 1] == b' ';
        if bytes[i] == b'"' {
            let end = skip_string(bytes, i);
            out.push_str(&debug[i..end]);
            i = end;
        } else if after_space && rest.starts_with("range: ") {
            i += "range: ".len();
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            if debug[i..].starts_with(", ") {
                i += 2;
            }
        } else if rest.starts_with("ExprConstant {") {
            out.push_str("Const");
            i = skip_balanced(bytes, i + "ExprConstant ".len(), b'{', b'}');
        } else if after_space && rest.starts_with("op: ") {
            out.push_str("op: _");
            i += "op: ".len();
            while i < bytes.len() && bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
        } else if after_space && rest.starts_with("ops: [") {
            out.push_str("ops: _");
            i = skip_balanced(bytes, i + "ops: ".len(), b'[', b']');
        } else {
            let ch = rest.chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// Index just past the string literal starting at `start` (a `"`).
fn skip_string(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// Index just past the bracket that closes the one at `start`.
fn skip_balanced(bytes: &[u8], start: usize, open: u8, close: u8) -> usize {
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'"' {
            i = skip_string(bytes, i);
            continue;
        }
        if b == open {
            depth += 1;
        } else if b == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return i + 1;
            }
        }
        i += 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustpython_parser::Parse;

    fn shape_of(text: &str) -> String {
        let suite = ast::Suite::parse(text, "t.py").unwrap();
        shape(&suite[0]).unwrap()
    }

    #[test]
    fn roles_and_abstracted_shapes() {
        assert_eq!(shape_of("return a + b\n"), shape_of("return None\n"));
        assert_eq!(shape_of("x = round(v, 1)\n"), shape_of("x = compute(v)\n"));
        assert_eq!(shape_of("log(a, 1)\n"), shape_of("log(b)\n"));
        assert_ne!(shape_of("x = 1\n"), shape_of("y = 1\n"));
        assert_eq!(shape_of("raise E(a + 1)\n"), shape_of("raise E(a - 2)\n"));
        assert_eq!(shape_of("if a < 1:\n    raise E('x')\n"), shape_of("if not a:\n    raise E('y')\n"));
        assert_ne!(shape_of("raise E(a)\n"), shape_of("raise F(a)\n"));
        assert!(!shape_of("raise E(a)\n").contains("range"), "node positions are dropped");
    }
}
