//! Why a commit of the history gives no task before any test runs: one [`Skip`] per
//! reason, for merges (merge-replay) and for single-parent commits (commit-replay).

use serde::Serialize;

/// Why a commit of the history gives no candidate.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, strum::IntoStaticStr, strum::EnumIter,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Skip {
    /// A merge with more than two parents.
    Octopus,
    /// A merge whose parents share no ancestor.
    NoMergeBase,
    /// git2 re-merges the parents without a conflict.
    CleanRemerge,
    /// A conflict git2 cannot write as text (modify/delete, binary).
    UnsupportedConflict,
    /// Conflicts only in files that are not Python.
    NoPythonConflict,
    /// Conflicts in Python test files only.
    OnlyTestConflicts,
    /// The tests fail at the merge commit itself.
    TestsFailAtMerge,
    /// The conflicted tree, with the merge's tests restored over it, passes them.
    ConflictedSolves,
    /// A commit without a parent (the history's first).
    RootCommit,
    /// The commit changes no source file (only tests, docs, packaging or CI).
    NoSourceChange,
    /// The commit changes source files but no test file: nothing proves its change.
    NoTestChange,
    /// The commit is over the size budget (changed lines or files).
    TooLarge,
    /// The commit supports only Python 2 (what it lists, or its `requires-python`).
    #[serde(rename = "python-2")]
    #[strum(serialize = "python-2")]
    Python2,
    /// No interpreter on this machine fits the commit's `requires-python`.
    NoInterpreter,
}

impl Skip {
    /// The kebab-case name, as serde writes it.
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }
}

impl std::fmt::Display for Skip {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}
