//! The records and files of a version: a task's record from its draft, its files and
//! manifest entry, the manifest's counts, the version written with its manifest last,
//! and the tasks a run must not repeat ([`Exclusions`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Result;

use super::draft::Draft;
use super::options::VersionMeta;
use crate::bundle::dataset::{self, VersionFiles, WriteResult};
use crate::bundle::manifest::{self, Counts, Generator, Manifest, SubstrateEntry, TaskEntry};
use crate::bundle::task::{self, Branches, ConflictRecord, FileRecord, MutationRecord, SubstrateRef, Task};
use crate::difficulty::near_duplicate;
use crate::difficulty::Level;
use crate::forge::Family;
use crate::snapshot::{sha256_hex, Snapshot};
use crate::substrate::Substrate;

/// Tasks new ones must not repeat: by id, or by near-duplicate fingerprint.
#[derive(Debug, Clone, Default)]
pub struct Exclusions {
    pub ids: BTreeSet<String>,
    pub fingerprints: BTreeSet<String>,
}

impl Exclusions {
    /// Excludes `task` and its near-duplicates.
    pub fn add(&mut self, task: &Task) {
        self.ids.insert(task.id.clone());
        self.fingerprints.insert(task_fingerprint(task));
    }
}

/// The near-duplicate fingerprint of a recorded task.
pub fn task_fingerprint(task: &Task) -> String {
    near_duplicate::fingerprint(
        task.files
            .iter()
            .filter(|f| task.conflicts.iter().any(|c| c.path == f.path))
            .map(|f| (f.path.as_str(), f.conflicted.as_str())),
    )
}

/// Writes the version a `gen-tasks` run makes: `files` (the tasks, in order, with their
/// manifest `entries`) and the manifest recording `options.command`.
pub(crate) fn write_generated(
    out: &Path,
    meta: &VersionMeta,
    substrates: Vec<SubstrateEntry>,
    files: &VersionFiles,
    entries: Vec<TaskEntry>,
) -> Result<(WriteResult, PathBuf, Manifest)> {
    let manifest = Manifest {
        schema: manifest::MANIFEST_SCHEMA.to_string(),
        dataset: meta.dataset.clone(),
        version: meta.version.clone(),
        generator: Generator { name: crate::GENERATOR.into(), version: crate::GENERATOR_VERSION.into() },
        command: meta.command.clone(),
        seed: meta.seed,
        substrates,
        counts: counts(&entries, 0),
        tasks: entries,
        retired: Vec::new(),
        parent: None,
        gen_command: None,
    };
    let manifest_bytes = task::to_json_bytes(&manifest)?;
    let (write, version_dir) = dataset::write_version(out, &meta.dataset, &meta.version, files, &manifest_bytes)?;
    Ok((write, version_dir, manifest))
}

/// Writes a task's `task.json` and `repo.bundle` under `<folder>/<id>/` and returns its
/// manifest entry.
pub fn add_task_files(files: &mut VersionFiles, folder: &str, task: &Task, bundle: &[u8]) -> Result<TaskEntry> {
    let json = task::to_json_bytes(task)?;
    let entry = TaskEntry {
        id: task.id.clone(),
        level: task.difficulty.level,
        family: task.family,
        substrate: task.substrate.name.clone(),
        task_sha256: sha256_hex(&json),
    };
    files.insert(format!("{folder}/{}/task.json", task.id), json);
    files.insert(format!("{folder}/{}/repo.bundle", task.id), bundle.to_vec());
    Ok(entry)
}

/// Manifest counts of `entries` (every level listed), with `retired` tasks set aside.
pub fn counts(entries: &[TaskEntry], retired: usize) -> Counts {
    let mut by_level: BTreeMap<Level, usize> = Level::ALL.into_iter().map(|l| (l, 0)).collect();
    let mut by_family: BTreeMap<Family, usize> = BTreeMap::new();
    for entry in entries {
        *by_level.entry(entry.level).or_default() += 1;
        *by_family.entry(entry.family).or_default() += 1;
    }
    Counts { tasks: entries.len(), by_level, by_family, retired }
}

/// Paths outside the conflicts where the merged tree and gold differ.
pub(super) fn edits_outside_conflicts(merged: &Snapshot, gold: &Snapshot, conflicted: &[String]) -> Vec<String> {
    let mut paths: Vec<String> = merged
        .keys()
        .chain(gold.keys())
        .filter(|p| !conflicted.contains(p) && merged.get(*p) != gold.get(*p))
        .cloned()
        .collect();
    paths.sort();
    paths.dedup();
    paths
}

fn text(data: Option<&Arc<[u8]>>) -> String {
    data.map(|d| String::from_utf8_lossy(d).into_owned()).unwrap_or_default()
}

pub(super) fn task_record(id: &str, substrate: &Substrate, draft: &Draft, bundle: &[u8]) -> Task {
    let paths: Vec<String> = draft.conflicts.iter().map(|c| c.path.clone()).collect();
    let outside = edits_outside_conflicts(&draft.conflicted, &draft.candidate.gold, &paths);
    let file_records = paths
        .iter()
        .chain(&outside)
        .map(|path| FileRecord {
            path: path.clone(),
            conflicted: text(draft.conflicted.get(path)),
            gold: text(draft.candidate.gold.get(path)),
        })
        .collect();
    Task {
        schema: task::TASK_SCHEMA.to_string(),
        id: id.to_string(),
        family: draft.candidate.family,
        summary: draft.candidate.summary.clone(),
        substrate: SubstrateRef {
            name: substrate.name.clone(),
            commit: substrate.commit.clone(),
            tree: substrate.tree_id.clone(),
        },
        test_command: substrate.config.test_command.clone(),
        test_env: substrate.config.env.clone(),
        timeout_s: substrate.config.timeout_s,
        branches: Branches {
            base: draft.commits.base.to_string(),
            ours: draft.commits.ours.to_string(),
            theirs: draft.commits.theirs.to_string(),
            gold: draft.commits.gold.to_string(),
        },
        conflicts: draft
            .conflicts
            .iter()
            .map(|c| ConflictRecord { path: c.path.clone(), hunks: c.hunks, conflicted_lines: c.conflicted_lines })
            .collect(),
        edits_outside_conflicts: outside,
        mutations: draft
            .candidate
            .mutations
            .iter()
            .map(|m| MutationRecord {
                operator: m.operator,
                path: m.path.clone(),
                line: m.line,
                function: m.function.clone(),
                description: m.description.clone(),
            })
            .collect(),
        difficulty: draft.difficulty.clone(),
        validation: draft.validation.clone(),
        files: file_records,
        bundle_sha256: sha256_hex(bundle),
        curriculum: None,
    }
}
