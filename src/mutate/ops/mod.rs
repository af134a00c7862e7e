//! The operator catalogue: one operator a file, listed once in [`ALL`].

use std::ops::Range;

use super::{Operator, PyModule};

mod binop_swap;
mod const_int;
mod flip_compare;
mod remove_statement;

/// Every operator, in a fixed order (the order mutations are enumerated in).
pub static ALL: &[&dyn Operator] = &[
    &binop_swap::BinOpSwap,
    &flip_compare::FlipCompare,
    &const_int::ConstInt,
    &remove_statement::RemoveStatement,
];

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
                if rest.starts_with(token) {
                    let after = rest[token.len()..].chars().next();
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
