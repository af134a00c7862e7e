//! The tasks an environment serves: a dataset version directory read once (manifest,
//! every `task.json`, the path of every `repo.bundle`), and the choice of a task for a
//! reset (by id, by level, by seed, or in rotation).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::bundle::{Manifest, Task};
use crate::difficulty::Level;

/// One task of the dataset.
#[derive(Debug)]
pub struct TaskEntry {
    pub task: Task,
    pub bundle: PathBuf,
}

/// A loaded dataset version.
#[derive(Debug)]
pub struct TaskSet {
    pub root: PathBuf,
    pub manifest: Manifest,
    /// Sorted by id.
    pub tasks: Vec<Arc<TaskEntry>>,
    rotation: AtomicU64,
}

/// How a reset names its task (read from the reset's data: `task_id`, `difficulty`, `seed`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TaskChoice {
    pub task_id: Option<String>,
    #[serde(rename = "difficulty")]
    pub level: Option<Level>,
    pub seed: Option<u64>,
}

impl TaskSet {
    /// Reads `<dir>/manifest.json` and every task it lists.
    pub fn load(dir: &Path) -> Result<TaskSet> {
        let manifest_path = dir.join("manifest.json");
        let bytes = std::fs::read(&manifest_path).with_context(|| {
            format!(
                "{}: no manifest.json (pass a dataset version directory, e.g. generated/mergeforge-embedded/1.0.0)",
                dir.display()
            )
        })?;
        let manifest: Manifest = serde_json::from_slice(&bytes)
            .with_context(|| format!("{}: not a mergeforge manifest", manifest_path.display()))?;
        let mut tasks = Vec::with_capacity(manifest.tasks.len());
        for entry in &manifest.tasks {
            let task_dir = dir.join("tasks").join(&entry.id);
            let task_path = task_dir.join("task.json");
            let bytes = std::fs::read(&task_path).with_context(|| format!("{}: cannot read", task_path.display()))?;
            let task: Task = serde_json::from_slice(&bytes)
                .with_context(|| format!("{}: not a mergeforge task", task_path.display()))?;
            let bundle = task_dir.join("repo.bundle");
            if !bundle.is_file() {
                bail!("{}: missing; the dataset is incomplete", bundle.display());
            }
            tasks.push(Arc::new(TaskEntry { task, bundle }));
        }
        if tasks.is_empty() {
            bail!("{}: the manifest lists no tasks", manifest_path.display());
        }
        tasks.sort_by(|a, b| a.task.id.cmp(&b.task.id));
        Ok(TaskSet { root: dir.to_path_buf(), manifest, tasks, rotation: AtomicU64::new(0) })
    }

    /// The task a reset asks for. Without an id: the tasks of the level (all if none),
    /// one picked by `seed`, or the next in rotation when there is no seed.
    pub fn choose(&self, choice: &TaskChoice) -> Result<Arc<TaskEntry>, String> {
        if let Some(id) = &choice.task_id {
            return self.tasks.iter().find(|t| &t.task.id == id).cloned().ok_or_else(|| {
                format!(
                    "unknown task_id `{id}`: GET /metadata lists the dataset; task ids are folder names under tasks/"
                )
            });
        }
        let candidates: Vec<&Arc<TaskEntry>> =
            self.tasks.iter().filter(|t| choice.level.is_none_or(|l| t.task.difficulty.level == l)).collect();
        if candidates.is_empty() {
            let level = choice.level.map_or("any", Level::name);
            return Err(format!("no task of difficulty `{level}` in this dataset"));
        }
        let index = match choice.seed {
            Some(seed) => splitmix64(seed) % candidates.len() as u64,
            None => self.rotation.fetch_add(1, Ordering::Relaxed) % candidates.len() as u64,
        };
        Ok(candidates[index as usize].clone())
    }

    /// Tasks matching an optional level and id filter, in id order.
    pub fn select(&self, level: Option<Level>, task_id: Option<&str>) -> Vec<Arc<TaskEntry>> {
        self.tasks
            .iter()
            .filter(|t| level.is_none_or(|l| t.task.difficulty.level == l))
            .filter(|t| task_id.is_none_or(|id| t.task.id == id))
            .cloned()
            .collect()
    }
}

/// A well-mixed hash of the seed, so that neighbouring seeds pick unrelated tasks.
fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
