//! Reading a published folder back, for `serve` and `eval`: the manifest, the task
//! records (`data/tasks/`), the solution records (`data/solutions/`) and the paths of
//! the `repo.bundle`s (`bundles/`), every one checked: `task.json` rebuilt from its
//! record against its sha256 in the manifest, `solution.json` and `repo.bundle`
//! against the digests in `task.json`. The gold bundles (`solutions/`) are not needed:
//! grading reads gold's text from the solution records.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::de::DeserializeOwned;

use super::configs::{SOLUTIONS_DATA, TASKS_DATA};
use super::records::{self, SolutionRecord, TaskRecord};
use crate::bundle::task::to_json_bytes;
use crate::bundle::{Manifest, Solution, Task};
use crate::snapshot::sha256_hex;

/// A task read from a published folder.
#[derive(Debug)]
pub(crate) struct PublishedTask {
    pub(crate) task: Task,
    pub(crate) solution: Solution,
    /// The task's `repo.bundle`.
    pub(crate) bundle: PathBuf,
}

/// A published folder, read and checked.
#[derive(Debug)]
pub(crate) struct Published {
    pub(crate) manifest: Manifest,
    /// In manifest order.
    pub(crate) tasks: Vec<PublishedTask>,
}

/// Whether `dir` looks like a published folder (task records and bundles) rather than
/// a dataset version directory.
pub(crate) fn is_published(dir: &Path) -> bool {
    dir.join(TASKS_DATA).is_dir() && dir.join("bundles").is_dir()
}

/// Reads the published folder `dir`. Refuses, with one line, a folder whose solutions
/// were left out: grading needs them.
pub(crate) fn load(dir: &Path) -> Result<Published> {
    let (manifest, _) = crate::bundle::manifest::read(dir)?;
    if !dir.join(SOLUTIONS_DATA).is_dir() {
        bail!(
            "{}: no {SOLUTIONS_DATA}/: this published folder was downloaded without its `solutions` config, and \
             serving or evaluating grades against the solutions; download {SOLUTIONS_DATA}/ too",
            dir.display()
        );
    }
    let task_records: BTreeMap<String, TaskRecord> = read_records(&dir.join(TASKS_DATA), |r: &TaskRecord| &r.id)?;
    let mut solution_records = read_records(&dir.join(SOLUTIONS_DATA), |r: &SolutionRecord| &r.id)?;
    let mut tasks = Vec::new();
    for entry in &manifest.tasks {
        let Some(record) = task_records.get(&entry.id) else {
            bail!(
                "{}: task {} of manifest.json has no record under {TASKS_DATA}/; the folder is incomplete",
                dir.display(),
                entry.id
            );
        };
        let task = records::task_from_record(record);
        if sha256_hex(&to_json_bytes(&task)?) != entry.sha256 {
            bail!(
                "{}: the record of task {} does not match its sha256 in manifest.json; publish it again",
                dir.display(),
                entry.id
            );
        }
        let Some(solution_record) = solution_records.remove(&entry.id) else {
            bail!(
                "{}: task {} has no record under {SOLUTIONS_DATA}/; the folder is incomplete",
                dir.display(),
                entry.id
            );
        };
        let solution = records::solution_from_record(&solution_record);
        if sha256_hex(&to_json_bytes(&solution)?) != task.sha256.solution_json {
            bail!("{}: the solution record of task {} does not match its sha256 in task.json", dir.display(), entry.id);
        }
        let bundle = dir.join(&record.bundle);
        let bytes = std::fs::read(&bundle)
            .with_context(|| format!("{}: missing or unreadable; the folder is incomplete", bundle.display()))?;
        if sha256_hex(&bytes) != task.sha256.repo_bundle {
            bail!(
                "{}: does not match its sha256 in task.json (a Git LFS pointer? fetch the LFS files)",
                bundle.display()
            );
        }
        tasks.push(PublishedTask { task, solution, bundle });
    }
    if task_records.len() != manifest.tasks.len() {
        bail!("{}: {TASKS_DATA}/ holds tasks manifest.json does not list; publish it again", dir.display());
    }
    Ok(Published { manifest, tasks })
}

/// Every record of the JSONL files under `root`, by id (a repeated id is an error).
fn read_records<R: DeserializeOwned>(root: &Path, id: impl Fn(&R) -> &String) -> Result<BTreeMap<String, R>> {
    let mut records = BTreeMap::new();
    let mut files = crate::bundle::dataset::walk_files(root)?;
    files.retain(|(relative, _)| relative.ends_with(".jsonl"));
    files.sort();
    for (_, path) in files {
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        for (number, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let record: R = serde_json::from_str(line)
                .with_context(|| format!("{}:{}: not a mergeforge record", path.display(), number + 1))?;
            let key = id(&record).clone();
            if records.insert(key.clone(), record).is_some() {
                bail!("{}: task {key} has two records", root.display());
            }
        }
    }
    Ok(records)
}
