//! Shared helpers for the operators in this folder: the final "changes something and
//! still parses" filter, naming the function a `def` defines, and removing a
//! statement's lines, finding an operator token between two operands. The Python walk and text helpers they
//! build on are [`crate::python`].

use std::ops::Range;

use crate::mutate::operator::{mutation_at, Mutation, Operator};
use crate::python::check::still_parses;
use crate::python::text::short;
use crate::python::PyModule;
use crate::python::StmtSite;

/// The qualified name of the function a `def` site defines: the function recorded for
/// the first statement of its body, which `statements()` lists right after it.
pub(crate) fn defined_function(sites: &[StmtSite<'_>], index: usize) -> Option<String> {
    sites.get(index + 1).and_then(|s| s.function.clone())
}

/// Keeps the mutations whose result still parses (and that change something), sorted
/// by position, stable otherwise.
pub(crate) fn finish(module: &PyModule, mut mutations: Vec<Mutation>) -> Vec<Mutation> {
    mutations.retain(|m| {
        module.text.get(m.start..m.end) != Some(m.replacement.as_str())
            && still_parses(module, m.start..m.end, &m.replacement)
    });
    mutations.sort_by_key(|m| (m.start, m.end));
    mutations
}

/// Deletes a statement's whole lines; `pass` (at its indentation) when it is the only
/// statement of its block.
pub(crate) fn remove_lines(op: &'static dyn Operator, module: &PyModule, site: &StmtSite<'_>) -> Option<Mutation> {
    let lines = module.whole_lines(site.stmt)?;
    let replacement = if site.block.len() == 1 {
        let removed = &module.text[lines.clone()];
        let newline = ["\r\n", "\n"].into_iter().find(|n| removed.ends_with(n)).unwrap_or("");
        format!("{}pass{newline}", module.indent_at(lines.start))
    } else {
        String::new()
    };
    let first_line = module.text[lines.clone()].lines().next().unwrap_or("").trim().to_string();
    Some(mutation_at(op, module, &site.function, lines, replacement, format!("remove `{}`", short(&first_line))))
}

/// Finds the operator token `token` in the text between two operands (`gap`), skipping
/// whitespace, parentheses, line continuations and comments. Returns its byte range.
pub(crate) fn token_in_gap(module: &PyModule, gap: Range<usize>, token: &str) -> Option<Range<usize>> {
    let text = module.text.get(gap.clone())?;
    let mut offset = 0;
    let bytes = text.as_bytes();
    while offset < bytes.len() {
        let rest = &text[offset..];
        match bytes[offset] {
            b' ' | b'\t' | b'\n' | b'\r' | b'\\' | b'(' | b')' => offset += 1,
            b'#' => offset += rest.find('\n').unwrap_or(rest.len()),
            _ => {
                if let Some(tail) = rest.strip_prefix(token) {
                    let after = tail.chars().next();
                    // `*` must not match the start of `**`, `/` of `//`, `<` of `<=`, ...
                    let glued = matches!(after, Some(c) if "*/=<>".contains(c)) && !token.ends_with('=');
                    let word = token.chars().all(|c| c.is_alphabetic())
                        && matches!(after, Some(c) if c.is_alphanumeric() || c == '_');
                    if glued || word {
                        return None;
                    }
                    let start = gap.start + offset;
                    return Some(start..start + token.len());
                }
                return None;
            }
        }
    }
    None
}
