//! What a reset observes of a task's fresh repository ([`Initial`]): the unmerged
//! paths, the conflicted texts, which Python files parse. Computed on every reset on the clone path, once per template on
//! the template path (see [`super::template`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::dataset::TaskEntry;
use super::workspace::{ScannedFile, TreeScan, Workspace};
use crate::bundle::task::ConflictKind;
use crate::merge::markers;
use crate::snapshot::Snapshot;

/// Scan bounds: a tree bigger than this is not a substrate any more.
pub(super) const SCAN_MAX_FILES: usize = 20_000;
pub(super) const SCAN_MAX_FILE_BYTES: u64 = 32 << 20;

/// What a scan says about the tree, beyond the raw files.
#[derive(Debug, Clone, Copy)]
pub(super) struct TreeFacts {
    pub(super) blocks: usize,
    pub(super) markers_left: bool,
    pub(super) broken_python: bool,
    pub(super) all_python_parses: bool,
}

/// What a reset derives from a task's freshly made repository: the same for every copy
/// of the task's template, so [`super::template`] computes it once per task (and keeps
/// it without the tree, which only the task's first graded run needs).
#[derive(Debug, Clone)]
pub(crate) struct Initial {
    pub(super) conflicted: Vec<String>,
    /// The whole tree at reset: empty in a template's copy.
    pub(super) merged: Snapshot,
    pub(super) broken_at_reset: BTreeSet<String>,
    pub(super) facts: TreeFacts,
    pub(super) last_conflicted: BTreeMap<String, String>,
    pub(super) fingerprint: String,
    pub(super) parses: Parses,
}

impl Initial {
    /// Reads `workspace` as a reset finds it (unmerged paths, conflicted texts, which
    /// Python files parse).
    pub(crate) fn of(workspace: &Workspace, entry: &TaskEntry) -> anyhow::Result<Initial> {
        // A semantic task has no unmerged path: its files are those both sides changed.
        let conflicted = match entry.task.conflict_kind {
            ConflictKind::Semantic => entry.task.conflicts.iter().map(|c| c.path.clone()).collect(),
            _ => workspace.unmerged_paths()?,
        };
        let mut parses = Parses::default();
        let scan = workspace.scan(SCAN_MAX_FILES, SCAN_MAX_FILE_BYTES);
        let broken_at_reset = unparsable(&scan, &mut parses).into_iter().filter(|p| !conflicted.contains(p)).collect();
        let facts = inspect(&scan, &conflicted, &broken_at_reset, &mut parses);
        Ok(Initial {
            merged: scan.snapshot(),
            facts,
            last_conflicted: conflicted_texts(&scan, &conflicted),
            fingerprint: scan.fingerprint(),
            conflicted,
            broken_at_reset,
            parses,
        })
    }

    /// The same without the tree (a template holds one per task, for as long as the
    /// environment lives).
    pub(crate) fn without_tree(self) -> Initial {
        Initial { merged: Snapshot::new(), ..self }
    }
}

/// Which texts parse, by a digest of path and text.
#[derive(Debug, Clone, Default)]
pub(super) struct Parses(HashMap<String, bool>);

impl Parses {
    /// Whether a scanned Python file parses (UTF-8, not too big, valid syntax), and
    /// whether it holds conflict markers.
    pub(super) fn file(&mut self, path: &str, file: &ScannedFile) -> (bool, bool) {
        let text = std::str::from_utf8(&file.bytes).ok().filter(|_| !file.too_big);
        (text.is_some_and(|t| self.text(path, t)), text.is_some_and(markers::has_markers))
    }

    fn text(&mut self, path: &str, text: &str) -> bool {
        let key = crate::snapshot::sha256_hex(format!("{path}\0{text}").as_bytes());
        *self.0.entry(key).or_insert_with(|| crate::python::parses(text, path))
    }
}

/// What a scan says about the conflicted files and the Python files (those broken at
/// reset aside).
pub(super) fn inspect(
    scan: &TreeScan,
    conflicted: &[String],
    broken_at_reset: &BTreeSet<String>,
    parses: &mut Parses,
) -> TreeFacts {
    let mut blocks = 0;
    let mut markers_left = false;
    for path in conflicted {
        if let Some(text) = scan.text(path) {
            blocks += conflict_blocks(text);
            markers_left |= markers::has_markers(text);
        }
    }
    let (mut broken_python, mut all_python_parses) = (false, true);
    for (path, file) in scan.files.iter().filter(|(p, _)| p.ends_with(".py")) {
        if broken_at_reset.contains(path) {
            continue;
        }
        let (parsed, has_markers) = parses.file(path, file);
        if !parsed {
            all_python_parses = false;
            broken_python |= !has_markers;
        }
    }
    TreeFacts { blocks, markers_left: markers_left || blocks > 0, broken_python, all_python_parses }
}

/// The Python files of `scan` that do not parse.
fn unparsable(scan: &TreeScan, parses: &mut Parses) -> Vec<String> {
    let python = scan.files.iter().filter(|(p, _)| p.ends_with(".py"));
    python.filter(|(path, file)| !parses.file(path, file).0).map(|(p, _)| p.clone()).collect()
}

pub(super) fn conflicted_texts(scan: &TreeScan, conflicted: &[String]) -> BTreeMap<String, String> {
    conflicted
        .iter()
        .filter_map(|p| scan.files.get(p).map(|f| (p.clone(), String::from_utf8_lossy(&f.bytes).into_owned())))
        .collect()
}

/// Conflict blocks in a text: complete hunks, or stray opening/closing markers,
/// whichever is more (deleting one marker line does not remove a block).
pub(crate) fn conflict_blocks(text: &str) -> usize {
    let opening = text.lines().filter(|l| l.starts_with("<<<<<<<")).count();
    let closing = text.lines().filter(|l| l.starts_with(">>>>>>>")).count();
    markers::count_conflicts(text).max(opening).max(closing)
}
