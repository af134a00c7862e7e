//! Static findings against gold: what a reviewer rejects that tests accept.
//! (Placeholder signature, replaced by the findings work in this branch's sibling.)

use anyhow::Result;

use crate::snapshot::Snapshot;

/// One static finding in a tree: a linter rule or an AST check, on a named thing.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub(crate) struct Finding {
    /// The file, relative to the tree's root.
    pub(crate) path: String,
    /// The rule: a ruff code (`F811`) or an AST check's name (`unreachable`, `repeated-block`).
    pub(crate) rule: String,
    /// What it is about (the redefined or undefined name, the function), how findings
    /// are matched against gold's.
    pub(crate) name: String,
    /// Where it is in the tree (1-based), for the message only.
    pub(crate) line: usize,
    /// A one-line message for the observation.
    pub(crate) message: String,
}

/// The findings `tree` has and `gold` has not, on every Python file where they differ.
pub(crate) fn findings(tree: &Snapshot, gold: &Snapshot) -> Result<Vec<Finding>> {
    let _ = (tree, gold);
    Ok(Vec::new())
}
