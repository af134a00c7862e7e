//! Test selection: which tests a changed tree needs, from a coverage map of the
//! substrate's HEAD tree.
//!
//! This module owns the shipped pytest plugin ([`PLUGIN_SOURCE`]), the [`CoverageMap`]
//! it writes (per test node id, the functions of the substrate's own source files the
//! test ran; per source file, every function's line span and the module-level and
//! class-body lines), and the rule that turns a tree into a [`Selection`]. It runs
//! nothing itself: `pytest::testrun` runs the plugin and the selected tests.
//!
//! The rule is regression test selection: a test that ran no changed function at HEAD
//! runs exactly the same code on the changed tree, so it passes as it did at HEAD. It is
//! only sound when every change can be attributed to functions, so the full suite runs
//! instead ([`FullReason`]) when a changed path is not a mapped source file (tests,
//! conftest, non-Python), a file is added or deleted, a changed file does not parse, a
//! change touches module-level or class-body lines or lies outside every function, a
//! changed function ran outside any test (imports, collection, wider-scoped fixtures,
//! teardowns) or in no test at all, or the selection is empty.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use anyhow::{Context, Result};
use rustpython_parser::{ast, Parse};
use serde::{Deserialize, Serialize};

use crate::snapshot::{sha256_hex, Snapshot};

/// The pytest plugin that records coverage maps and runs selections.
pub(crate) const PLUGIN_SOURCE: &str = include_str!("mergeforge_plugin.py");
/// The module name the plugin is loaded as (`-p mergeforge_plugin`).
pub(crate) const PLUGIN_MODULE: &str = "mergeforge_plugin";

/// The plugin's identity in cache keys: a change to it invalidates maps and selections.
pub(crate) fn plugin_version() -> String {
    sha256_hex(PLUGIN_SOURCE.as_bytes())[..16].to_string()
}

/// How `gen-tasks` chooses the tests run on a tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub(crate) enum SelectionMode {
    /// Gold trees run the full suite; other trees run the tests that reach their changes.
    #[default]
    Coverage,
    /// Every tree runs the full suite.
    Full,
}

impl SelectionMode {
    /// The lowercase name, as serde and the CLI write it.
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }
}

impl std::fmt::Display for SelectionMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// What the plugin records on a tree (see `mergeforge_plugin.py`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoverageMap {
    pub(crate) version: u32,
    /// pytest's exit status for the traced run (0: every test passed).
    pub(crate) exit_status: i32,
    /// Source file path (relative to the tree root) → its code objects.
    pub(crate) files: BTreeMap<String, FileMap>,
    /// Test node id → the functions it ran, as `path:first_line:name`.
    pub tests: BTreeMap<String, Vec<String>>,
    /// Functions that ran outside any test.
    pub(crate) outside_tests: Vec<String>,
    /// Seconds the traced run took to start and collect the suite (tracing slows it).
    #[serde(default)]
    pub(crate) collect_seconds: f64,
    /// Test node id → seconds its setup, call and teardown took in the traced run.
    #[serde(default)]
    pub(crate) durations: BTreeMap<String, f64>,
    /// Tests that failed only under the trace (set by the runner, not the plugin): what
    /// they run is unknown, so every selection runs them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untraced: Vec<String>,
}

/// The code objects of one source file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileMap {
    /// Every function code object: `(first line, last line, name)`; the first line is
    /// that of its first decorator, the last the highest line of it or its nested code.
    pub(crate) functions: Vec<(u32, u32, String)>,
    /// Lines of module-level and class-body code (including `def` and decorator lines).
    pub(crate) module_lines: Vec<u32>,
}

/// Most tests a coverage map may mark untraced (or 1 % of the suite, if more).
const MAX_UNTRACED: usize = 5;

impl CoverageMap {
    /// Marks `failed` (the tests that failed in the traced run) untraced, when that can
    /// explain the failure: a few tests (at most [`MAX_UNTRACED`], or 1 % of the suite),
    /// each of them in the map. The caller checks they pass untraced.
    pub(crate) fn mark_untraced(&mut self, failed: Vec<String>) -> bool {
        let few = failed.len() <= MAX_UNTRACED.max(self.tests.len() / 100);
        if failed.is_empty() || !few || !failed.iter().all(|id| self.tests.contains_key(id)) {
            return false;
        }
        self.untraced = failed;
        true
    }

    /// Reads the plugin's JSON.
    pub(crate) fn from_json(bytes: &[u8]) -> Result<Self> {
        serde_json::from_slice(bytes).context("reading a coverage map written by the mergeforge pytest plugin")
    }

    /// A function's key in [`CoverageMap::tests`] and [`CoverageMap::outside_tests`]:
    /// `path:first_line:name`, the first line being its first decorator's (1-based).
    pub(crate) fn function_key(path: &str, first_line: impl std::fmt::Display, name: &str) -> String {
        format!("{path}:{first_line}:{name}")
    }
}

/// The tests to run on a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// These node ids, sorted (never empty).
    Tests(Vec<String>),
    /// The full suite, for this reason.
    Full(FullReason),
}

/// Why a tree runs the full suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FullReason {
    /// A changed path is not a source file the map knows (a test, conftest, non-Python).
    NotMappedSource(String),
    AddedOrDeleted(String),
    DoesNotParse(String),
    ModuleLevel {
        path: String,
        line: u32,
    },
    OutsideFunctions {
        path: String,
        line: u32,
    },
    RanOutsideTests(String),
    RanInNoTest(String),
    /// No changed function was run by a test (this includes a tree equal to HEAD).
    EmptySelection,
    /// The runner has no coverage map (`--selection full`, or the trace failed).
    NoCoverageMap,
}

/// How much slower than at HEAD a selected run may be before it counts as timed out.
pub(crate) const TIMEOUT_FACTOR: f64 = 10.0;
/// The least time limit of a selected run.
pub(crate) const MIN_SELECTED_TIMEOUT: Duration = Duration::from_secs(10);

/// A coverage map indexed for selection.
#[derive(Debug, Clone)]
pub(crate) struct CoverageIndex {
    map: CoverageMap,
    /// Function key → the tests that ran it.
    tests_of: BTreeMap<String, BTreeSet<String>>,
    outside: BTreeSet<String>,
}

impl CoverageIndex {
    pub(crate) fn new(map: CoverageMap) -> Self {
        let mut tests_of: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (test, functions) in &map.tests {
            for function in functions {
                tests_of.entry(function.clone()).or_default().insert(test.clone());
            }
        }
        let outside = map.outside_tests.iter().cloned().collect();
        CoverageIndex { map, tests_of, outside }
    }

    pub(crate) fn map(&self) -> &CoverageMap {
        &self.map
    }

    /// Every test of the map by the file that holds it (the node id's path part).
    pub(crate) fn tests_by_file(&self) -> BTreeMap<String, Vec<String>> {
        let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for id in self.map.tests.keys() {
            let file = id.split("::").next().unwrap_or(id);
            files.entry(file.to_string()).or_default().push(id.clone());
        }
        files
    }

    /// The time limit of a run of `ids` (a CPU budget, as every sandboxed command's:
    /// [`crate::sandbox::cputime`]): [`TIMEOUT_FACTOR`] times what those tests took in
    /// the traced HEAD run, but never less than a sixth of `configured`, three
    /// times that run's start-up and collection, or [`MIN_SELECTED_TIMEOUT`], and never
    /// more than `configured`. A test with no recorded duration gets `configured`. A
    /// selected run that hangs thus costs a fraction of the configured timeout; one that
    /// is merely slow (a mutation can make a test take seconds before it fails) keeps
    /// the verdict a full run would give it as long as it stays under that fraction.
    pub(crate) fn timeout_for(&self, ids: &[String], configured: Duration) -> Duration {
        let mut seconds = 0.0;
        for id in ids {
            match self.map.durations.get(id) {
                Some(duration) => seconds += duration,
                None => return configured,
            }
        }
        let floor = MIN_SELECTED_TIMEOUT
            .max(configured / 6)
            .max(Duration::from_secs_f64(3.0 * self.map.collect_seconds.max(0.0)));
        Duration::from_secs_f64(seconds * TIMEOUT_FACTOR).max(floor).min(configured)
    }

    /// The tests `tree` needs, given that `head` is the tree the map was recorded on.
    pub(crate) fn select(&self, head: &Snapshot, tree: &Snapshot) -> Selection {
        let mut selected = BTreeSet::new();
        let paths: BTreeSet<&String> = head.keys().chain(tree.keys()).collect();
        for path in paths {
            match (head.get(path), tree.get(path)) {
                (Some(old), Some(new)) if old == new => {}
                (Some(old), Some(new)) => match self.select_in_file(path, old, new) {
                    Ok(tests) => selected.extend(tests),
                    Err(reason) => return Selection::Full(reason),
                },
                _ => return Selection::Full(FullReason::AddedOrDeleted(path.clone())),
            }
        }
        if selected.is_empty() {
            return Selection::Full(FullReason::EmptySelection);
        }
        selected.extend(self.map.untraced.iter().cloned());
        Selection::Tests(selected.into_iter().collect())
    }

    /// The tests that ran the functions a change to one file touches.
    fn select_in_file(&self, path: &str, old: &[u8], new: &[u8]) -> Result<BTreeSet<String>, FullReason> {
        let file = self.map.files.get(path).ok_or_else(|| FullReason::NotMappedSource(path.to_string()))?;
        let parses = std::str::from_utf8(new).is_ok_and(|text| ast::Suite::parse(text, path).is_ok());
        if !parses {
            return Err(FullReason::DoesNotParse(path.to_string()));
        }
        let module_lines: BTreeSet<u32> = file.module_lines.iter().copied().collect();
        let mut tests = BTreeSet::new();
        for line in changed_head_lines(old, new).map_err(|_| FullReason::DoesNotParse(path.to_string()))? {
            if module_lines.contains(&line) {
                return Err(FullReason::ModuleLevel { path: path.to_string(), line });
            }
            let mut inside =
                file.functions.iter().filter(|(first, last, _)| *first <= line && line <= *last).peekable();
            if inside.peek().is_none() {
                return Err(FullReason::OutsideFunctions { path: path.to_string(), line });
            }
            for (first, _, name) in inside {
                let key = CoverageMap::function_key(path, first, name);
                if self.outside.contains(&key) {
                    return Err(FullReason::RanOutsideTests(key));
                }
                let ran = self.tests_of.get(&key).ok_or_else(|| FullReason::RanInNoTest(key.clone()))?;
                tests.extend(ran.iter().cloned());
            }
        }
        Ok(tests)
    }
}

/// The HEAD (old) lines a change touches, 1-based: every replaced or deleted line, and
/// for a pure insertion after line `p` both `p` and `p + 1` (the insertion must lie
/// inside one function to be attributed).
pub fn changed_head_lines(old: &[u8], new: &[u8]) -> Result<BTreeSet<u32>> {
    let mut options = git2::DiffOptions::new();
    options.context_lines(0).force_text(true);
    let patch =
        git2::Patch::from_buffers(old, None, new, None, Some(&mut options)).context("diffing a changed file")?;
    let mut lines = BTreeSet::new();
    for index in 0..patch.num_hunks() {
        let (hunk, _) = patch.hunk(index).context("reading a diff hunk")?;
        if hunk.old_lines() == 0 {
            lines.insert(hunk.old_start());
            lines.insert(hunk.old_start() + 1);
        } else {
            lines.extend(hunk.old_start()..hunk.old_start() + hunk.old_lines());
        }
    }
    Ok(lines)
}
