//! `remove-parameter` and `remove-argument`: the edits the signature-callsite family
//! makes itself (drop a defaulted parameter from a definition, drop that argument from a
//! call). The engine never enumerates them (`mutations` is empty); they are catalogue
//! entries so that the records naming them carry their metadata like any operator.

use crate::mutate::operator::{Mutation, Operator, OperatorKind};
use crate::python::PyModule;

/// Drops a parameter from a function's signature.
pub(crate) struct RemoveParameter;
/// Drops an argument from a call.
pub(crate) struct RemoveArgument;

impl Operator for RemoveParameter {
    fn name(&self) -> &'static str {
        "remove-parameter"
    }

    fn description(&self) -> &'static str {
        "drops a defaulted parameter from a definition (made by the signature-callsite family, never enumerated)"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Restructure
    }
    fn mutations(&'static self, _: &PyModule) -> Vec<Mutation> {
        Vec::new()
    }
}

impl Operator for RemoveArgument {
    fn name(&self) -> &'static str {
        "remove-argument"
    }

    fn description(&self) -> &'static str {
        "drops that parameter's argument from a call (made by the signature-callsite family, never enumerated)"
    }
    fn kind(&self) -> OperatorKind {
        OperatorKind::Restructure
    }
    fn mutations(&'static self, _: &PyModule) -> Vec<Mutation> {
        Vec::new()
    }
}
