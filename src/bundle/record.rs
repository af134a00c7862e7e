//! A task's records and bundles, made from a validated, levelled candidate:
//! `task.json` ([`Task`]), `solution.json` ([`Solution`]), `repo.bundle` and
//! `solution.bundle`, as one [`TaskFiles`].

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};

use super::dataset::VersionFiles;
use super::gitbundle;
use super::manifest::TaskEntry;
use super::solution::{self, CommitRecord, Commits, FileRecord, IntentRecord, Intents, InteractionRecord, Solution};
use super::task::{self, ConflictKind, ConflictRecord, Digests, SubstrateRef, Task};
use crate::difficulty::{near_duplicate, Difficulty, Features};
use crate::forge::commits::TaskCommits;
use crate::forge::Candidate;
use crate::merge::ConflictedFile;
use crate::resolve::RecordKey;
use crate::snapshot::{sha256_hex, Snapshot};
use crate::substrate::Substrate;
use crate::validate::Validation;

/// The names of a task's files, in its folder.
pub(crate) const TASK_JSON: &str = "task.json";
pub(crate) const SOLUTION_JSON: &str = "solution.json";
pub(crate) const REPO_BUNDLE: &str = "repo.bundle";
pub(crate) const SOLUTION_BUNDLE: &str = "solution.bundle";

/// Everything the records are made from: a kept candidate and what judging it found.
pub(crate) struct TaskInput<'a> {
    pub(crate) id: &'a str,
    pub(crate) substrate: &'a Substrate,
    pub(crate) candidate: &'a Candidate,
    pub(crate) commits: &'a TaskCommits,
    /// The merged tree (conflicted files with diff3 markers).
    pub(crate) conflicted: &'a Snapshot,
    pub(crate) conflicts: &'a [ConflictedFile],
    pub(crate) validation: &'a Validation,
    pub(crate) difficulty: &'a Difficulty,
    pub(crate) features: &'a Features,
    pub(crate) conflict_kind: ConflictKind,
    pub(crate) scale: crate::difficulty::Scale,
    /// Per interaction of the candidate, whether it is witnessed (`None`: not checked).
    pub(crate) witnessed: &'a [Option<bool>],
    /// The interpreter the task's tests ran on.
    pub(crate) python: &'a crate::pytest::venv::PythonEnv,
    /// The test command they ran (the substrate's, or its era's for a history commit).
    pub(crate) test_command: &'a [String],
}

/// A task's four files. `task.json` is serialised from `task` when written (a curriculum
/// refresh changes its level and standing); the other three are kept as bytes.
#[derive(Debug, Clone)]
pub struct TaskFiles {
    pub task: Task,
    pub(crate) solution: Solution,
    pub(crate) solution_json: Vec<u8>,
    pub(crate) repo_bundle: Vec<u8>,
    pub(crate) solution_bundle: Vec<u8>,
    /// Measured test durations by outcome name (`validation.<tree>`), for the outcome
    /// cache's run record: never written into a version. Empty when read from disk.
    pub(crate) durations: BTreeMap<String, u64>,
}

impl TaskFiles {
    /// Bundles `input`'s commits (from `repo`) and makes its records.
    pub(crate) fn make(repo: &git2::Repository, input: &TaskInput) -> Result<TaskFiles> {
        let repo_bundle = gitbundle::repo_bundle(repo, input.commits)?;
        let solution_bundle = gitbundle::solution_bundle(repo, input.commits)?;
        let solution = solution_record(repo, input)?;
        let solution_json = task::to_json_bytes(&solution)?;
        let digests = Digests {
            repo_bundle: sha256_hex(&repo_bundle),
            solution_bundle: sha256_hex(&solution_bundle),
            solution_json: sha256_hex(&solution_json),
        };
        let task = task_record(input, digests);
        let durations = durations(input.validation);
        Ok(TaskFiles { task, solution, solution_json, repo_bundle, solution_bundle, durations })
    }

    /// The same task with the grader's check recorded in its solution (`solution.json`
    /// and its digest in `task.json` written again).
    pub(crate) fn with_grader(mut self, check: solution::GraderCheck) -> Result<TaskFiles> {
        self.solution.grader = Some(check);
        self.solution_json = task::to_json_bytes(&self.solution)?;
        self.task.sha256.solution_json = sha256_hex(&self.solution_json);
        Ok(self)
    }

    /// Adds the files under `<folder>/<id>/` and returns the manifest entry.
    pub(crate) fn add_to(&self, files: &mut VersionFiles, folder: &str) -> Result<TaskEntry> {
        let json = task::to_json_bytes(&self.task)?;
        let id = &self.task.id;
        let entry = TaskEntry {
            id: id.clone(),
            level: self.task.difficulty.level,
            family: self.task.family,
            conflict_kind: self.task.conflict_kind,
            scale: self.task.scale,
            substrate: self.task.substrate.name.clone(),
            sha256: sha256_hex(&json),
        };
        files.insert(format!("{folder}/{id}/{TASK_JSON}"), json);
        files.insert(format!("{folder}/{id}/{SOLUTION_JSON}"), self.solution_json.clone());
        files.insert(format!("{folder}/{id}/{REPO_BUNDLE}"), self.repo_bundle.clone());
        files.insert(format!("{folder}/{id}/{SOLUTION_BUNDLE}"), self.solution_bundle.clone());
        Ok(entry)
    }

    /// Reads the task folder `dir` and checks `task.json` against `sha256` and every
    /// other file against the digests in `task.json`.
    pub fn load(dir: &Path, sha256: &str) -> Result<TaskFiles> {
        let read = |name: &str| -> Result<Vec<u8>> {
            let path = dir.join(name);
            std::fs::read(&path)
                .with_context(|| format!("{}: missing or unreadable; the version is incomplete", path.display()))
        };
        let json = read(TASK_JSON)?;
        let task_path = dir.join(TASK_JSON);
        if sha256_hex(&json) != sha256 {
            bail!(
                "{}: does not match its sha256 in manifest.json; the version was changed after it was written, regenerate it",
                task_path.display()
            );
        }
        let task: Task =
            serde_json::from_slice(&json).with_context(|| format!("{}: not a mergeforge task", task_path.display()))?;
        let [solution_json, repo_bundle, solution_bundle] = [SOLUTION_JSON, REPO_BUNDLE, SOLUTION_BUNDLE].map(read);
        let (solution_json, repo_bundle, solution_bundle) = (solution_json?, repo_bundle?, solution_bundle?);
        for (name, bytes, digest) in [
            (SOLUTION_JSON, &solution_json, &task.sha256.solution_json),
            (REPO_BUNDLE, &repo_bundle, &task.sha256.repo_bundle),
            (SOLUTION_BUNDLE, &solution_bundle, &task.sha256.solution_bundle),
        ] {
            if sha256_hex(bytes) != *digest {
                bail!("{}: does not match its sha256 in task.json; regenerate the version", dir.join(name).display());
            }
        }
        let solution: Solution = serde_json::from_slice(&solution_json)
            .with_context(|| format!("{}: not a mergeforge solution", dir.join(SOLUTION_JSON).display()))?;
        if solution.id != task.id {
            bail!("{}: names task {}, not {}", dir.join(SOLUTION_JSON).display(), solution.id, task.id);
        }
        Ok(TaskFiles { task, solution, solution_json, repo_bundle, solution_bundle, durations: BTreeMap::new() })
    }

    /// The near-duplicate fingerprint of the task's conflict hunks.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.task, &self.solution)
    }
}

/// The near-duplicate fingerprint of a recorded task: its conflicted files' merged text.
pub(crate) fn fingerprint(task: &Task, solution: &Solution) -> String {
    near_duplicate::fingerprint(
        solution
            .files
            .iter()
            .filter(|f| task.conflicts.iter().any(|c| c.path == f.path))
            .map(|f| (f.path.as_str(), f.conflicted.as_str())),
    )
}

fn task_record(input: &TaskInput, sha256: Digests) -> Task {
    let substrate = input.substrate;
    Task {
        schema: task::TASK_SCHEMA.to_string(),
        id: input.id.to_string(),
        family: input.candidate.family,
        conflict_kind: input.conflict_kind,
        substrate: SubstrateRef { name: substrate.name.clone(), commit: substrate.commit.clone() },
        test_command: input.test_command.to_vec(),
        test_env: substrate.config.env.clone(),
        timeout_s: substrate.config.timeout_s,
        scale: input.scale,
        python: Some(task_python(input.python)),
        conflicts: input
            .conflicts
            .iter()
            .map(|c| ConflictRecord { path: c.path.clone(), hunks: c.hunks, conflicted_lines: c.conflicted_lines })
            .collect(),
        difficulty: input.difficulty.clone(),
        curriculum: None,
        sha256,
    }
}

/// What a task records of the interpreter its tests ran on: the version (`3.11.7`) and
/// every distribution of its venv as `name==version` (pip, setuptools and wheel, which
/// every venv has, left out).
pub(crate) fn task_python(python: &crate::pytest::venv::PythonEnv) -> task::TaskPython {
    let venv = python.interpreter.parent().and_then(std::path::Path::parent).unwrap_or(std::path::Path::new("."));
    let lock = crate::pytest::venv::package_list(venv)
        .iter()
        .filter_map(|entry| {
            let stem = entry.strip_suffix(".dist-info").or_else(|| entry.strip_suffix(".egg-info"))?;
            let (name, version) = stem.rsplit_once('-')?;
            let skipped = ["pip", "setuptools", "wheel", "distribute"].contains(&name.to_ascii_lowercase().as_str());
            (!skipped).then(|| format!("{name}=={version}"))
        })
        .collect();
    let version = python.version.trim_start_matches("Python").trim().to_string();
    task::TaskPython { version, lock }
}

fn solution_record(repo: &git2::Repository, input: &TaskInput) -> Result<Solution> {
    let paths: Vec<String> = input.conflicts.iter().map(|c| c.path.clone()).collect();
    let gold = &input.candidate.gold;
    let outside = edits_outside_conflicts(input.conflicted, gold, &paths);
    let files = paths
        .iter()
        .chain(&outside)
        .map(|path| FileRecord {
            path: path.clone(),
            conflicted: text(input.conflicted.get(path)),
            gold: text(gold.get(path)),
        })
        .collect();
    let commits = input.commits;
    Ok(Solution {
        schema: solution::SOLUTION_SCHEMA.to_string(),
        id: input.id.to_string(),
        summary: input.candidate.summary.clone(),
        commits: Commits {
            base: commits.base.to_string(),
            ours: commits.ours.to_string(),
            theirs: commits.theirs.to_string(),
            gold: commits.gold.to_string(),
        },
        files,
        edits_outside_conflicts: outside,
        intents: Intents {
            ours: IntentRecord::of(
                &input.candidate.ours_intent,
                CommitRecord::chain(repo, commits.base, commits.ours)?,
            ),
            theirs: IntentRecord::of(
                &input.candidate.theirs_intent,
                CommitRecord::chain(repo, commits.base, commits.theirs)?,
            ),
        },
        interactions: input
            .candidate
            .interactions
            .iter()
            .zip(input.witnessed)
            .map(|(interaction, witnessed)| InteractionRecord::of(interaction, *witnessed))
            .collect(),
        validation: input.validation.clone(),
        features: input.features.clone(),
        grader: None,
        origin: input.candidate.origin.clone(),
    })
}

/// Paths outside the conflicts where the merged tree and gold differ.
pub(crate) fn edits_outside_conflicts(merged: &Snapshot, gold: &Snapshot, conflicted: &[String]) -> Vec<String> {
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

/// What kind of conflict the merge left: no marker is `semantic` (a clean merge whose
/// tests fail); markers are `textual` when gold changes nothing outside them, `mixed`
/// when gold also changes a file git merged cleanly, or a conflicted file's lines
/// outside its markers.
pub(crate) fn conflict_kind(merged: &Snapshot, gold: &Snapshot, conflicted: &[String]) -> ConflictKind {
    if conflicted.is_empty() {
        return ConflictKind::Semantic;
    }
    let outside_markers_kept = conflicted.iter().all(|path| {
        let gold_text = text(gold.get(path));
        context_kept(&text(merged.get(path)), &gold_text)
    });
    if edits_outside_conflicts(merged, gold, conflicted).is_empty() && outside_markers_kept {
        ConflictKind::Textual
    } else {
        ConflictKind::Mixed
    }
}

/// Whether every line of `merged` outside its diff3 marker blocks appears in `gold`, in
/// order (gold keeps the context git merged, changing only what the markers hold).
fn context_kept(merged: &str, gold: &str) -> bool {
    let mut gold_lines = gold.lines();
    let mut in_block = false;
    for line in merged.lines() {
        if line.starts_with("<<<<<<< ") || line == "<<<<<<<" {
            in_block = true;
        } else if line.starts_with(">>>>>>> ") || line == ">>>>>>>" {
            in_block = false;
        } else if !in_block && !gold_lines.any(|g| g == line) {
            return false;
        }
    }
    true
}

fn text(data: Option<&Arc<[u8]>>) -> String {
    data.map(|d| String::from_utf8_lossy(d).into_owned()).unwrap_or_default()
}

/// Every measured duration of a validation, by the outcome's place in the record
/// (`baselines.union.ours_first` for a member of a shared key); baselines that did not run
/// have none.
fn durations(v: &Validation) -> BTreeMap<String, u64> {
    let sides = [("conflicted", &v.conflicted), ("ours", &v.ours), ("theirs", &v.theirs), ("gold", &v.gold)];
    let mut named: BTreeMap<String, u64> =
        sides.into_iter().map(|(name, o)| (name.to_string(), o.duration_ms)).collect();
    for (resolver, outcome) in v.baselines.iter() {
        let place = match resolver.record_key() {
            RecordKey::Own(key) => format!("baselines.{key}"),
            RecordKey::Shared { key, member } => format!("baselines.{key}.{member}"),
        };
        if let Some(outcome) = outcome.outcome() {
            named.insert(place, outcome.duration_ms);
        }
    }
    named
}
