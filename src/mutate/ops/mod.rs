//! The operator catalogue: one operator a file, listed once in [`ALL`].

use std::ops::Range;

use super::{Operator, PyModule};

mod binop_swap;
mod bool_op;
mod change_default;
mod const_int;
mod flip_compare;
mod invert_if;
mod negate_condition;
mod remove_if;
mod remove_loop;
pub(crate) mod remove_statement;
mod rename_param;
mod return_value;
mod signature_edits;
pub(crate) mod support;
mod swap_operands;
mod swap_statements;
mod unwrap_block;

/// Every operator, in a fixed order (the order mutations are enumerated in).
pub static ALL: &[&dyn Operator] = &[
    &binop_swap::BinOpSwap,
    &flip_compare::FlipCompare,
    &const_int::ConstInt,
    &remove_statement::RemoveStatement,
    &swap_operands::SwapOperands,
    &negate_condition::NegateCondition,
    &bool_op::BoolOpSwap,
    &return_value::ReturnValue,
    &change_default::ChangeDefault,
    &invert_if::InvertIf,
    &remove_if::RemoveIf,
    &remove_loop::RemoveLoop,
    &unwrap_block::UnwrapBlock,
    &swap_statements::SwapStatements,
    &rename_param::RenameParam,
];

/// Operators a family applies itself (the engine never enumerates them); listed so
/// that records naming them read back and score like any other operator.
pub static MADE_BY_FAMILIES: &[&dyn Operator] = &[&signature_edits::RemoveParameter, &signature_edits::RemoveArgument];

pub(crate) use remove_statement::RemoveStatement;
pub(crate) use signature_edits::{RemoveArgument, RemoveParameter};

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
