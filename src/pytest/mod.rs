//! pytest in the sandbox: everything that turns "run this tree's tests" into a
//! [`outcome::Outcome`], on top of the jail in [`crate::sandbox`] (which never imports
//! this module).
//!
//! - [`venv`]: the interpreter, a cached virtual environment with pytest and a
//!   substrate's `python_deps`;
//! - [`lock`]: requirements pinned as of a date (uv), for a history commit's venv;
//! - [`testrun`]: the [`testrun::TestRunner`] (full or selected runs, [`testrun::RunStats`]);
//! - [`outcome`]: what a run comes to, the recorded [`outcome::Outcome`];
//! - [`cache`]: the content-addressed [`cache::OutcomeCache`];
//! - [`report`]: reading pytest's console report (failing test ids);
//! - [`select`]: test selection from a coverage map of HEAD, and its pytest plugin;
//! - [`confirm`]: what a selected or single run cannot vouch for, and the runs that
//!   confirm it (kinds, counts, order-dependent tests, flaky tests);
//! - [`forkserver`]: warm pytest processes that run selected tests without start-up cost.

pub mod cache;
pub mod confirm;
pub mod forkserver;
pub(crate) mod lock;
pub(crate) mod outcome;
pub(crate) mod report;
pub mod select;
pub mod testrun;
pub mod venv;

use std::collections::BTreeMap;
use std::path::Path;

/// `env` with `dir` appended to its `PYTHONPATH` (after what the substrate sets there).
pub(crate) fn append_python_path(env: &mut BTreeMap<String, String>, dir: &Path) {
    let dir = dir.to_string_lossy().into_owned();
    let python_path = match env.get("PYTHONPATH") {
        Some(existing) if !existing.is_empty() => format!("{existing}:{dir}"),
        _ => dir,
    };
    env.insert("PYTHONPATH".to_string(), python_path);
}

/// The last non-blank line of a command's output, for one-line error messages.
pub(crate) fn last_line(output: &str) -> &str {
    output.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("")
}
