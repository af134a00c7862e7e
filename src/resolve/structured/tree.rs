//! A Python file as a tree of statement texts: every byte of the file belongs to exactly
//! one piece, so rendering the tree gives the file back unchanged.
//!
//! A statement's text runs from the end of the previous statement (blank lines and
//! comments before it come along) to the end of its last line. A compound statement is
//! split into `glue` (its header, `else:` lines, ...) and the blocks of its bodies; one
//! whose body shares a line with its header (`if x: return y`) stays a leaf.

use std::ops::Range;

use rustpython_ast::{self as ast, Ranged};
use rustpython_parser::Parse;

use super::imports::Import;

/// A statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    /// A statement kept whole.
    Leaf { text: String, import: Option<Import> },
    /// A compound statement: `glue[0] body[0] glue[1] body[1] ... glue[n]`.
    Compound { kind: &'static str, key: String, glue: Vec<String>, bodies: Vec<Block> },
}

/// The statements of one suite, in order.
pub(crate) type Block = Vec<Node>;

/// A whole module: its statements and the text after the last one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Module {
    pub(crate) block: Block,
    pub(crate) tail: String,
}

impl Node {
    /// The node's exact source text.
    pub(crate) fn text(&self) -> String {
        let mut out = String::new();
        self.render_into(&mut out);
        out
    }

    fn render_into(&self, out: &mut String) {
        match self {
            Node::Leaf { text, .. } => out.push_str(text),
            Node::Compound { glue, bodies, .. } => {
                for (i, piece) in glue.iter().enumerate() {
                    out.push_str(piece);
                    if let Some(body) = bodies.get(i) {
                        for node in body {
                            node.render_into(out);
                        }
                    }
                }
            }
        }
    }

    /// Whether two versions of a statement are the same statement, changed or not:
    /// compound statements of one kind and key (`def name`, `class name`, or the header
    /// line), or imports of the same module.
    pub(crate) fn corresponds(&self, other: &Node) -> bool {
        match (self, other) {
            (Node::Compound { kind: k1, key: a, .. }, Node::Compound { kind: k2, key: b, .. }) => k1 == k2 && a == b,
            (Node::Leaf { import: Some(a), .. }, Node::Leaf { import: Some(b), .. }) => a.head == b.head,
            _ => false,
        }
    }
}

/// The text of a block.
pub(crate) fn render_block(block: &[Node]) -> String {
    block.iter().map(Node::text).collect()
}

impl Module {
    /// Parses `text`; `None` if it is not Python or a top-level statement shares a line
    /// with another.
    pub(crate) fn parse(text: &str) -> Option<Module> {
        let suite = ast::Suite::parse(text, "<structured>").ok()?;
        let source = Source { text };
        let (block, end) = source.block(&suite, 0)?;
        Some(Module { block, tail: text[end..].to_string() })
    }

    /// The module's text again (the parse round-trips).
    #[cfg(test)]
    pub(crate) fn render(&self) -> String {
        render_block(&self.block) + &self.tail
    }
}

struct Source<'a> {
    text: &'a str,
}

impl Source<'_> {
    /// The statements of a suite, starting at byte `start`; returns the block and where it ends.
    fn block(&self, stmts: &[ast::Stmt], start: usize) -> Option<(Block, usize)> {
        let mut pos = start;
        let mut nodes = Vec::with_capacity(stmts.len());
        for stmt in stmts {
            let lines = self.whole_lines(stmt)?;
            if lines.start < pos {
                return None;
            }
            nodes.push(self.node(stmt, pos, lines.clone()));
            pos = lines.end;
        }
        Some((nodes, pos))
    }

    fn node(&self, stmt: &ast::Stmt, from: usize, lines: Range<usize>) -> Node {
        let leaf = || {
            let text = self.text[from..lines.end].to_string();
            let import = Import::parse(&text, stmt);
            Node::Leaf { text, import }
        };
        let bodies = bodies(stmt);
        if bodies.is_empty() {
            return leaf();
        }
        match self.compound(stmt, &bodies, from, lines.clone()) {
            Some(node) => node,
            None => leaf(),
        }
    }

    fn compound(&self, stmt: &ast::Stmt, bodies: &[&[ast::Stmt]], from: usize, lines: Range<usize>) -> Option<Node> {
        let mut glue = Vec::with_capacity(bodies.len() + 1);
        let mut blocks = Vec::with_capacity(bodies.len());
        let mut pos = from;
        for body in bodies {
            let first = self.whole_lines(body.first()?)?;
            if first.start < pos.max(lines.start + 1) {
                return None;
            }
            glue.push(self.text[pos..first.start].to_string());
            let (block, end) = self.block(body, first.start)?;
            blocks.push(block);
            pos = end;
        }
        if pos > lines.end {
            return None;
        }
        glue.push(self.text[pos..lines.end].to_string());
        let header = self.text[lines.start..].lines().next().unwrap_or("").trim().to_string();
        let (kind, key) = kind_and_key(stmt, header);
        Some(Node::Compound { kind, key, glue, bodies: blocks })
    }

    /// From the start of the statement's first line to just past its last line's newline,
    /// if the statement starts its line and nothing but a comment follows it.
    fn whole_lines(&self, stmt: &ast::Stmt) -> Option<Range<usize>> {
        let range = stmt.range();
        let (start, end) = (range.start().to_usize(), range.end().to_usize());
        let line_start = self.text[..start].rfind('\n').map_or(0, |i| i + 1);
        if !self.text[line_start..start].trim().is_empty() {
            return None;
        }
        let line_end = self.text[end..].find('\n').map_or(self.text.len(), |i| end + i + 1);
        let rest = self.text[end..line_end].trim();
        (rest.is_empty() || rest.starts_with('#')).then_some(line_start..line_end)
    }
}

/// The suites directly inside a statement, in source order, empty ones left out.
fn bodies(stmt: &ast::Stmt) -> Vec<&[ast::Stmt]> {
    let mut blocks: Vec<&[ast::Stmt]> = match stmt {
        ast::Stmt::FunctionDef(def) => vec![&def.body],
        ast::Stmt::AsyncFunctionDef(def) => vec![&def.body],
        ast::Stmt::ClassDef(def) => vec![&def.body],
        other => crate::python::walk::child_blocks(other),
    };
    blocks.retain(|b| !b.is_empty());
    blocks.sort_by_key(|b| b.first().map(|s| s.range().start().to_usize()));
    blocks
}

fn kind_and_key(stmt: &ast::Stmt, header: String) -> (&'static str, String) {
    match stmt {
        ast::Stmt::FunctionDef(def) => ("def", def.name.to_string()),
        ast::Stmt::AsyncFunctionDef(def) => ("def", def.name.to_string()),
        ast::Stmt::ClassDef(def) => ("class", def.name.to_string()),
        ast::Stmt::If(_) => ("if", header),
        ast::Stmt::For(_) | ast::Stmt::AsyncFor(_) => ("for", header),
        ast::Stmt::While(_) => ("while", header),
        ast::Stmt::With(_) | ast::Stmt::AsyncWith(_) => ("with", header),
        ast::Stmt::Try(_) | ast::Stmt::TryStar(_) => ("try", header),
        ast::Stmt::Match(_) => ("match", header),
        _ => ("other", header),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
import os
from a import b, c

# A comment before a decorated function.
@decorator
def f(x):
    if x:  # trailing
        return 1
    elif x is None:
        return 2
    else:
        y = x

        return y
    try:
        pass
    except ValueError:
        z = 1
    finally:
        z = 2


class C:
    def m(self): return 1
    a = 1; b = 2
x = [
    1,
]
# tail comment
";

    #[test]
    fn rendering_gives_the_file_back() {
        let module = Module::parse(SOURCE).expect("parses");
        assert_eq!(module.render(), SOURCE);
        assert_eq!(module.block.len(), 5);
        assert_eq!(module.tail, "# tail comment\n");
        let Node::Compound { kind, key, bodies, glue } = &module.block[2] else { panic!("f is compound") };
        assert_eq!((*kind, key.as_str()), ("def", "f"));
        assert!(glue[0].starts_with("\n# A comment") && glue[0].contains("@decorator"), "{glue:?}");
        assert_eq!(bodies[0].len(), 2);
        // `a = 1; b = 2` shares a line: the class stays a leaf.
        assert!(matches!(&module.block[3], Node::Leaf { .. }));
        assert!(matches!(&module.block[1], Node::Leaf { import: Some(_), .. }));
    }

    #[test]
    fn shared_top_level_lines_are_refused() {
        assert!(Module::parse("a = 1; b = 2\n").is_none());
        assert_eq!(Module::parse("").map(|m| m.render()), Some(String::new()));
        assert_eq!(Module::parse("x = 1").map(|m| m.render()), Some("x = 1".to_string()));
    }
}
