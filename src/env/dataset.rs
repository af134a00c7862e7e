//! The tasks an environment serves: a dataset version directory or a published folder
//! read once (manifest, every `task.json` and `solution.json` or their records, the
//! path of every `repo.bundle`), and the
//! choice of a task for a reset (by id, by level, by seed, or in rotation). The episode
//! repository is built from `repo.bundle`; the solution serves the server side only
//! (reward references, the gold agent, the demo page).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::{bail, Result};
use schemars::JsonSchema;
use serde::Deserialize;

use super::grader::GoldCache;
use crate::bundle::{Manifest, Solution, StoredVersion, Task};
use crate::difficulty::Level;

/// One task of the dataset.
#[derive(Debug)]
pub struct TaskEntry {
    pub task: Task,
    /// Never shown to an agent.
    pub solution: Solution,
    /// The task's `repo.bundle`.
    pub bundle: PathBuf,
    /// Gold's side of the grader, run by the first episode graded.
    pub gold: GoldCache,
}

/// A loaded dataset version.
#[derive(Debug)]
pub struct TaskSet {
    pub(crate) manifest: Manifest,
    /// Sorted by id.
    pub tasks: Vec<Arc<TaskEntry>>,
    rotation: AtomicU64,
}

/// How a reset names its task (read from the reset's data: `task_id`, `difficulty`, `seed`).
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(default)]
pub struct TaskChoice {
    /// The task to play (a dataset task id); otherwise one is drawn.
    pub task_id: Option<String>,
    /// Draw among the tasks of this difficulty level.
    #[serde(rename = "difficulty")]
    pub level: Option<Level>,
    /// Draw with this seed (the same seed, the same task).
    pub seed: Option<u64>,
}

impl TaskSet {
    /// Reads `<dir>/manifest.json` and every task it lists: a dataset version directory,
    /// or a published folder (`mergeforge publish`, solutions included).
    pub(crate) fn load(dir: &Path) -> Result<TaskSet> {
        if crate::publish::read::is_published(dir) {
            let published = crate::publish::read::load(dir)?;
            let tasks = published
                .tasks
                .into_iter()
                .map(|t| {
                    Arc::new(TaskEntry {
                        task: t.task,
                        solution: t.solution,
                        bundle: t.bundle,
                        gold: GoldCache::default(),
                    })
                })
                .collect();
            return TaskSet::new(dir, published.manifest, tasks);
        }
        if !dir.join("manifest.json").is_file() {
            bail!(
                "{}: no manifest.json (pass a dataset version directory, e.g. generated/mergeforge-embedded/1.0.0)",
                dir.display()
            );
        }
        let version = StoredVersion::load(dir)?;
        let tasks: Vec<Arc<TaskEntry>> = version
            .tasks
            .into_iter()
            .map(|files| {
                let bundle = dir.join("tasks").join(&files.task.id).join(crate::bundle::record::REPO_BUNDLE);
                Arc::new(TaskEntry { task: files.task, solution: files.solution, bundle, gold: GoldCache::default() })
            })
            .collect();
        TaskSet::new(dir, version.manifest, tasks)
    }

    fn new(dir: &Path, manifest: Manifest, mut tasks: Vec<Arc<TaskEntry>>) -> Result<TaskSet> {
        if tasks.is_empty() {
            bail!("{}: the manifest lists no tasks", dir.join("manifest.json").display());
        }
        tasks.sort_by(|a, b| a.task.id.cmp(&b.task.id));
        Ok(TaskSet { manifest, tasks, rotation: AtomicU64::new(0) })
    }

    /// The task a reset asks for. Without an id: the tasks of the level (all if none),
    /// one picked by `seed`, or the next in rotation when there is no seed.
    pub(crate) fn choose(&self, choice: &TaskChoice) -> Result<Arc<TaskEntry>, String> {
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

    /// Tasks matching an optional level and ids (none: every id), in id order.
    pub(crate) fn select(&self, level: Option<Level>, ids: &[String]) -> Vec<Arc<TaskEntry>> {
        self.tasks
            .iter()
            .filter(|t| level.is_none_or(|l| t.task.difficulty.level == l))
            .filter(|t| ids.is_empty() || ids.contains(&t.task.id))
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
