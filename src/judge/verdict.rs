//! The shapes of a judgement: how the caller runs tests ([`Runs`]), what a run of a
//! tree's own tests lists ([`Listed`]) and why a tree does not solve its task
//! ([`Unsolved`]).

use std::collections::BTreeSet;

use anyhow::Result;

use super::findings::Finding;
use crate::snapshot::Snapshot;

/// A run of a tree's own tests (part (b)): whether the command passed, the ids that
/// failed (or a placeholder saying why it failed without naming one) and the ids that
/// passed.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listed {
    pub(crate) passed: bool,
    pub(crate) failed: Vec<String>,
    pub(crate) passing: BTreeSet<String>,
}

/// How the judgement runs the task's test command on a tree.
pub(crate) trait Runs {
    /// A run of gold's tests over a tree (part (a)), as this side keeps it.
    type Graded;
    /// Runs the test command on `graded` ([`super::graded_tree`]).
    fn graded(&self, graded: &Snapshot) -> Result<Self::Graded>;
    /// Whether that run passes: the command exits 0 (and, where this side knows them,
    /// every test that passes on gold passed).
    fn passes(&self, run: &Self::Graded) -> bool;
    /// Runs the test command on `own` (a tree's own test files with gold's steering
    /// ones), listing the ids that passed.
    fn listed(&self, own: &Snapshot) -> Result<Listed>;
    /// The test ids that pass on gold (empty when the command does not name tests).
    fn gold_passing(&self) -> Result<BTreeSet<String>>;
}

/// Why a tree does not solve its task: the first part of the judgement it fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unsolved {
    /// (a) Gold's tests restored over the tree do not pass.
    GoldTests,
    /// (b) The tree's own tests fail (the failing ids).
    OwnTests(Vec<String>),
    /// (b) Gold's tests the tree's own do not keep: test ids that pass on gold and not
    /// among the tree's own, or gold's test functions whose version in the tree has
    /// fewer checks (`path::Class::test`).
    NotKept(Vec<String>),
    /// (c) Static findings the tree has and gold has not.
    Findings(Vec<Finding>),
}

/// At most this many reasons go into a record or an observation.
const MAX_REASONS: usize = 200;

impl Unsolved {
    /// Placeholder test ids for a record's list of failing tests, so that the reason is
    /// visible where a rung's failures are listed: `<own tests ID>`, `<not kept ID>`,
    /// `<finding RULE PATH NAME>`. Empty for part (a), whose run names its own failures.
    pub(crate) fn placeholders(&self) -> Vec<String> {
        let bare = |id: &String| id.strip_prefix('<').and_then(|i| i.strip_suffix('>')).unwrap_or(id).to_string();
        let mut ids: Vec<String> = match self {
            Unsolved::GoldTests => Vec::new(),
            Unsolved::OwnTests(ids) => ids.iter().map(|id| format!("<own tests {}>", bare(id))).collect(),
            Unsolved::NotKept(ids) => ids.iter().map(|id| format!("<not kept {id}>")).collect(),
            Unsolved::Findings(found) => {
                found.iter().map(|f| format!("<finding {} {} {}>", f.rule, f.path, f.name)).collect()
            }
        };
        ids.sort();
        ids.dedup();
        ids.truncate(MAX_REASONS);
        ids
    }

    /// One line for the agent: which part failed and what it names.
    pub(crate) fn describe(&self) -> String {
        let list = |items: Vec<String>| {
            let shown: Vec<&str> = items.iter().take(10).map(String::as_str).collect();
            format!("{}{}", shown.join(", "), if items.len() > 10 { ", ..." } else { "" })
        };
        match self {
            Unsolved::GoldTests => "not solved: the tests fail".to_string(),
            Unsolved::OwnTests(ids) => format!(
                "not solved: the repository's own test files (run with the reference's conftest.py and test \
                 configuration) fail: {}",
                list(ids.clone())
            ),
            Unsolved::NotKept(ids) => format!(
                "not solved: the resolution of the test files does not keep these tests (missing, not passing, or \
                 with fewer checks): {}",
                list(ids.clone())
            ),
            Unsolved::Findings(found) => format!(
                "not solved: static findings the reference does not have: {}",
                list(found.iter().map(|f| format!("{}:{}: {} {}", f.path, f.line, f.rule, f.message)).collect())
            ),
        }
    }
}
