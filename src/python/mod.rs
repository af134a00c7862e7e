//! The Python layer: parsed sources (rustpython-parser) and what every stage that reads
//! or edits Python needs of them. Byte offsets in the AST index the module's text, so
//! edits are splices that keep untouched code byte for byte.
//!
//! - this file: [`PyModule`] (a parsed file, line geometry: which byte range a whole
//!   statement occupies, its indentation) and every statement with its enclosing
//!   function and block ([`PyModule::statements`]);
//! - [`walk`]: the AST walk (the expressions a statement owns, sub-expressions, nested
//!   statements, parameters, match patterns);
//! - [`text`]: source-text helpers (block lines, `elif`, negation, precedence, swaps);
//! - [`check`]: whether a module still parses with a byte range replaced, parsing the
//!   smallest piece of text that decides it.
//!
//! It knows nothing of mutations, families or tests; `mutate`, `forge`, `resolve` and
//! `env` build on it, and nothing here imports them.

pub(crate) mod check;
pub(crate) mod text;
pub(crate) mod walk;

use std::ops::Range;

use rustpython_ast::{self as ast, Ranged};
use rustpython_parser::Parse;

use walk::child_blocks;

/// A parsed module; byte offsets in the AST index `text`.
pub struct PyModule {
    pub(crate) path: String,
    pub(crate) text: String,
    pub(crate) suite: Vec<ast::Stmt>,
    line_starts: Vec<usize>,
}

/// A statement and where it sits.
pub(crate) struct StmtSite<'a> {
    pub(crate) stmt: &'a ast::Stmt,
    /// Qualified name of the innermost enclosing function (`Class.method`), if any.
    pub(crate) function: Option<String>,
    /// The block holding the statement and the statement's index in it.
    pub(crate) block: &'a [ast::Stmt],
    pub(crate) index: usize,
}

/// The byte offset of each line of `text`.
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0).chain(text.match_indices('\n').map(|(at, _)| at + 1)).collect()
}

/// Whether `text` parses as a Python module.
pub fn parses(text: &str, path: &str) -> bool {
    ast::Suite::parse(text, path).is_ok()
}

impl PyModule {
    pub fn parse(path: &str, text: &str) -> Result<Self, String> {
        let suite = ast::Suite::parse(text, path).map_err(|e| format!("{path}: {e}"))?;
        Ok(PyModule { path: path.to_string(), text: text.to_string(), suite, line_starts: line_starts(text) })
    }

    /// `piece`, found at `offset` of `text`, parsed on its own (a docstring's example):
    /// the suite is the piece's, its offsets and the module's text are `text`'s.
    pub(crate) fn parse_piece(path: &str, text: &str, piece: &str, offset: usize) -> Result<Self, String> {
        let at = rustpython_ast::text_size::TextSize::try_from(offset).map_err(|e| format!("{path}: {e}"))?;
        let suite = ast::Suite::parse_starts_at(piece, path, at).map_err(|e| format!("{path}: {e}"))?;
        Ok(PyModule { path: path.to_string(), text: text.to_string(), suite, line_starts: line_starts(text) })
    }

    /// 1-based line number of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// The byte range of `range`'s text.
    pub(crate) fn span(node: &impl Ranged) -> Range<usize> {
        let r = node.range();
        r.start().to_usize()..r.end().to_usize()
    }

    /// The source text of a node.
    pub(crate) fn source(&self, node: &impl Ranged) -> &str {
        &self.text[Self::span(node)]
    }

    /// The whole lines a statement occupies (from the start of its first line to just past
    /// the newline of its last), if nothing else shares those lines.
    pub(crate) fn whole_lines(&self, node: &impl Ranged) -> Option<Range<usize>> {
        let span = Self::span(node);
        let line_start = self.text[..span.start].rfind('\n').map_or(0, |i| i + 1);
        if !self.text[line_start..span.start].trim().is_empty() {
            return None;
        }
        let after = &self.text[span.end..];
        let line_end = after.find('\n').map_or(self.text.len(), |i| span.end + i + 1);
        let rest = self.text[span.end..line_end].trim();
        if !(rest.is_empty() || rest.starts_with('#')) {
            return None;
        }
        Some(line_start..line_end)
    }

    /// The indentation (leading whitespace) of the line holding `offset`.
    pub(crate) fn indent_at(&self, offset: usize) -> &str {
        let line_start = self.text[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line = &self.text[line_start..];
        let width = line.len() - line.trim_start_matches([' ', '\t']).len();
        &line[..width]
    }

    /// Every statement in the module, depth-first in source order.
    pub(crate) fn statements(&self) -> Vec<StmtSite<'_>> {
        let mut sites = Vec::new();
        walk_block(&self.suite, None, &mut Vec::new(), &mut sites);
        sites
    }
}

fn walk_block<'a>(
    block: &'a [ast::Stmt],
    function: Option<&str>,
    scope: &mut Vec<String>,
    out: &mut Vec<StmtSite<'a>>,
) {
    for (index, stmt) in block.iter().enumerate() {
        out.push(StmtSite { stmt, function: function.map(str::to_string), block, index });
        match stmt {
            ast::Stmt::FunctionDef(def) => {
                scope.push(def.name.to_string());
                let name = scope.join(".");
                walk_block(&def.body, Some(&name), scope, out);
                scope.pop();
            }
            ast::Stmt::AsyncFunctionDef(def) => {
                scope.push(def.name.to_string());
                let name = scope.join(".");
                walk_block(&def.body, Some(&name), scope, out);
                scope.pop();
            }
            ast::Stmt::ClassDef(def) => {
                scope.push(def.name.to_string());
                walk_block(&def.body, function, scope, out);
                scope.pop();
            }
            other => {
                for body in child_blocks(other) {
                    walk_block(body, function, scope, out);
                }
            }
        }
    }
}
