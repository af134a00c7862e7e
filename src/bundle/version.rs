//! A dataset version as a whole: writing what a run made (tasks, then the manifest
//! last), reading one back with every digest checked, and the run's measured durations,
//! which live in the outcome cache and never in the version.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::dataset::{self, VersionFiles, WriteResult};
use super::manifest::{
    self, Counts, Generator, Ladder, LadderTools, Manifest, MissingReason, MissingRung, SubstrateEntry, TaskEntry,
};
use super::record::TaskFiles;
use super::task::{self, ConflictKind};
use crate::difficulty::{Level, Scale};
use crate::forge::Family;

/// What a version's manifest records about the run that made it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct VersionMeta {
    pub(crate) dataset: String,
    pub(crate) version: String,
    /// The canonical command line (no --out, --cache, --jobs or --shard).
    pub(crate) command: Vec<String>,
    pub(crate) seed: u64,
}

/// Writes the version a `gen-tasks` run makes: `files` (the tasks, in order, with their
/// manifest `entries`, levelled by `ladder`) and the manifest recording `meta`.
pub(crate) fn write_generated(
    out: &Path,
    meta: &VersionMeta,
    substrates: Vec<SubstrateEntry>,
    ladder: Ladder,
    files: &VersionFiles,
    entries: Vec<TaskEntry>,
) -> Result<(WriteResult, PathBuf, Manifest)> {
    let manifest = Manifest {
        schema: manifest::MANIFEST_SCHEMA.to_string(),
        dataset: meta.dataset.clone(),
        version: meta.version.clone(),
        generator: generator(),
        command: meta.command.clone(),
        seed: meta.seed,
        substrates,
        ladder,
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

/// This program, as a manifest records it.
pub(crate) fn generator() -> Generator {
    Generator { name: crate::GENERATOR.into(), version: crate::GENERATOR_VERSION.into() }
}

/// The ladder as it runs in this process: every rung of [`crate::resolve::ALL`] that is
/// unavailable is missing (the `mergiraf` rung as chosen by
/// [`crate::resolve::mergiraf::prepare`], or as found), with the versions of
/// mergiraf, libgit2, `python` (the first substrate's interpreter, as it reports itself)
/// and its pytest (the tool's pin without one).
pub(crate) fn ladder(python: Option<&crate::pytest::venv::PythonEnv>) -> Ladder {
    use crate::resolve::mergiraf::{Binary, FROM_PATH};
    use crate::resolve::Resolver;
    let missing: Vec<MissingRung> = crate::resolve::ALL
        .iter()
        .filter(|resolver| !resolver.available())
        .map(|resolver| MissingRung {
            resolver: resolver.name().to_string(),
            reason: match (resolver.name() == FROM_PATH.name(), FROM_PATH.choice()) {
                (true, Binary::Skipped) => MissingReason::Skipped,
                _ => MissingReason::NotFound,
            },
        })
        .collect();
    let tools = LadderTools {
        mergiraf: FROM_PATH.version(),
        libgit2: libgit2_version(),
        python: python.map(|p| p.version.clone()).unwrap_or_default(),
        pytest: python
            .map_or(crate::pytest::venv::pytest_version(), |p| crate::pytest::venv::pinned_version(&p.pytest))
            .to_string(),
    };
    Ladder { complete: missing.is_empty(), missing, tools, agent: None }
}

/// The libgit2 version git2 reports (`1.9.1`).
pub(crate) fn libgit2_version() -> String {
    let (major, minor, patch) = git2::Version::get().libgit2_version();
    format!("{major}.{minor}.{patch}")
}

/// Manifest counts of `entries` (every level listed), with `retired` tasks set aside.
pub(crate) fn counts(entries: &[TaskEntry], retired: usize) -> Counts {
    let mut by_level: BTreeMap<Level, usize> = Level::ALL.into_iter().map(|l| (l, 0)).collect();
    let mut by_family: BTreeMap<Family, usize> = BTreeMap::new();
    let mut by_conflict_kind: BTreeMap<ConflictKind, usize> = BTreeMap::new();
    let mut by_scale: BTreeMap<Scale, usize> = Scale::ALL.into_iter().map(|s| (s, 0)).collect();
    for entry in entries {
        *by_scale.entry(entry.scale).or_default() += 1;
        *by_level.entry(entry.level).or_default() += 1;
        *by_family.entry(entry.family).or_default() += 1;
        *by_conflict_kind.entry(entry.conflict_kind).or_default() += 1;
    }
    Counts { tasks: entries.len(), by_level, by_family, by_conflict_kind, by_scale, retired }
}

/// Adds `tasks` under `tasks/` and returns their manifest entries, in order.
pub(crate) fn add_tasks(files: &mut VersionFiles, tasks: &[TaskFiles]) -> Result<Vec<TaskEntry>> {
    tasks.iter().map(|t| t.add_to(files, "tasks")).collect()
}

/// A version read back, every file checked against its digest.
#[derive(Debug, Clone)]
pub(crate) struct StoredVersion {
    pub(crate) manifest: Manifest,
    pub(crate) manifest_bytes: Vec<u8>,
    /// The training split, in manifest order.
    pub(crate) tasks: Vec<TaskFiles>,
    /// The retired split, in manifest order.
    pub(crate) retired: Vec<TaskFiles>,
}

impl StoredVersion {
    /// Reads the version folder `dir` (refusing older formats with one line).
    pub(crate) fn load(dir: &Path) -> Result<StoredVersion> {
        let (manifest, manifest_bytes) = manifest::read(dir)?;
        let load = |folder: &str, entries: &[TaskEntry]| -> Result<Vec<TaskFiles>> {
            entries.iter().map(|entry| load_task(dir, folder, entry)).collect()
        };
        let tasks = load("tasks", &manifest.tasks)?;
        let retired = load("retired/tasks", &manifest.retired)?;
        Ok(StoredVersion { manifest, manifest_bytes, tasks, retired })
    }
}

fn load_task(dir: &Path, folder: &str, entry: &TaskEntry) -> Result<TaskFiles> {
    let id = &entry.id;
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_')) {
        bail!("{}: task id {id:?} is not a plain name", dir.join("manifest.json").display());
    }
    let task_dir = dir.join(folder).join(id);
    let files = TaskFiles::load(&task_dir, &entry.sha256)?;
    let task = &files.task;
    if task.id != *id || task.family != entry.family || task.difficulty.level != entry.level {
        bail!("{}: id, family or level differ from its manifest entry", task_dir.join("task.json").display());
    }
    Ok(files)
}

/// Records a run's measured test durations in the outcome cache:
/// `<cache_dir>/runs/<dataset>/<version><suffix>.json`, task id → outcome → ms.
pub(crate) fn write_durations(
    cache_dir: &Path,
    meta: &VersionMeta,
    suffix: &str,
    tasks: &[&TaskFiles],
) -> Result<PathBuf> {
    let durations: BTreeMap<&str, &BTreeMap<String, u64>> =
        tasks.iter().map(|t| (t.task.id.as_str(), &t.durations)).collect();
    let dir = cache_dir.join("runs").join(&meta.dataset);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(format!("{}{suffix}.json", meta.version));
    std::fs::write(&path, task::to_json_bytes(&durations)?).with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}
