//! The operator catalogue: one operator a file, listed once in [`ALL`].

use super::operator::Operator;

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
pub(crate) static ALL: &[&dyn Operator] = &[
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
pub(crate) static MADE_BY_FAMILIES: &[&dyn Operator] =
    &[&signature_edits::RemoveParameter, &signature_edits::RemoveArgument];

pub(crate) use remove_statement::RemoveStatement;
pub(crate) use signature_edits::{RemoveArgument, RemoveParameter};
