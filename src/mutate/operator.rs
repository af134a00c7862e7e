//! What an operator is and makes: the [`Operator`] trait (an entry of the catalogue in
//! [`super::ops`]), its [`OperatorKind`], the [`Mutation`] it proposes and
//! [`OperatorRef`], an operator as records hold it. Operators depend on this file; the
//! catalogue lookups (reading an operator back by name) live in the parent module.

use serde::Serialize;

use crate::python::PyModule;

/// What an operator does to behaviour, which decides the families that may use it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum OperatorKind {
    /// Replaces a value, operator or expression in place (divergent-edit, compose-edits).
    Alter,
    /// Deletes whole statements (strip-restore).
    Remove,
    /// Restructures code without being a plain value change (invert if/else, swaps, renames).
    Restructure,
}

/// One proposed change to one file: replace `start..end` of the text with `replacement`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mutation {
    pub operator: OperatorRef,
    pub kind: OperatorKind,
    pub(crate) path: String,
    /// Qualified name of the enclosing function, if any.
    pub(crate) function: Option<String>,
    /// 1-based line where the edit starts.
    pub line: usize,
    pub start: usize,
    pub end: usize,
    pub replacement: String,
    /// Human-readable summary, e.g. "`<` → `<=`".
    pub description: String,
}

impl Mutation {
    /// Whether two mutations touch overlapping bytes of the same file.
    pub(crate) fn overlaps(&self, other: &Mutation) -> bool {
        self.path == other.path && self.start < other.end && other.start < self.end
    }

    /// A stable identity of the edit, for keys and ids.
    pub(crate) fn key(&self) -> String {
        format!("{}:{}:{}-{}:{}", self.operator, self.path, self.start, self.end, self.replacement)
    }
}

/// A mutation operator: one small type, listed once in [`crate::mutate::catalogue`].
pub trait Operator: Sync + Send {
    /// Kebab-case name recorded in task features (e.g. `flip-compare`).
    fn name(&self) -> &'static str;
    /// What the operator does, in one phrase (the catalogue table in `docs/reference/`).
    fn description(&self) -> &'static str;
    /// Which families may use its mutations.
    fn kind(&self) -> OperatorKind;
    /// Every mutation this operator can make in `module`, in source order.
    fn mutations(&'static self, module: &PyModule) -> Vec<Mutation>;
}

/// An operator of the catalogue as records hold it: written as its name, read back by
/// looking the name up in [`crate::mutate::catalogue`] (an unknown name is an error, never a default).
/// Compares and orders by name.
#[derive(Clone, Copy)]
pub struct OperatorRef(&'static dyn Operator);

impl OperatorRef {
    pub(crate) fn new(operator: &'static dyn Operator) -> Self {
        OperatorRef(operator)
    }

    pub(crate) fn name(self) -> &'static str {
        self.0.name()
    }
}

impl PartialEq for OperatorRef {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for OperatorRef {}

impl PartialEq<&str> for OperatorRef {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

impl PartialOrd for OperatorRef {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OperatorRef {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl std::hash::Hash for OperatorRef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state)
    }
}

impl std::fmt::Debug for OperatorRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::fmt::Display for OperatorRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for OperatorRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}
/// Helper for operators: a mutation of `node`'s range inside `site`.
pub(crate) fn mutation_at(
    op: &'static dyn Operator,
    module: &PyModule,
    function: &Option<String>,
    range: std::ops::Range<usize>,
    replacement: String,
    description: String,
) -> Mutation {
    Mutation {
        operator: OperatorRef(op),
        kind: op.kind(),
        path: module.path.clone(),
        function: function.clone(),
        line: module.line_of(range.start),
        start: range.start,
        end: range.end,
        replacement,
        description,
    }
}
