//! Publishing: a finished dataset version becomes a Hugging Face Hub dataset repository
//! folder, optionally committed and pushed with git.
//!
//! ```text
//! HFDIR/README.md                          dataset card (card.rs)
//! HFDIR/.gitattributes                     *.bundle and files over 8 MiB through LFS
//! HFDIR/manifest.json                      the version's manifest, as generated
//! HFDIR/data/tasks/<level>/<split>-NNNNN.jsonl   agent-facing records (task.json's fields) of generated tasks, shards of at most 8 MiB
//! HFDIR/data/tasks/real/<split>-NNNNN.jsonl      the same of the tasks made from a project's history
//! HFDIR/data/solutions/<split>-NNNNN.jsonl       solution records (solution.json's fields and the split group)
//! HFDIR/bundles/<task_id>.bundle                 the tasks' repo.bundle (branches base, ours, theirs), copied
//! HFDIR/solutions/<task_id>.bundle               the tasks' solution.bundle (branch gold), copied
//! ```
//!
//! Each folder under `data/tasks/` is a config, and `default` reads them all
//! ([`configs`]). Everything that tells an answer is under `data/solutions/` and
//! `solutions/`: a trainer may leave both out (the `solutions` config is never read by
//! the others).
//! Splits are by group ([`group`]): no group has tasks in both. [`read`] loads a
//! published folder back (for `serve` and `eval`).
//!
//! This stage owns the published layout and the push. It reads a version only through
//! `bundle`'s types, checks every task.json and bundle against the recorded sha256, and
//! never changes the version it reads. Same version and options give the same bytes.

pub(crate) mod card;
pub mod configs;
pub(crate) mod features;
pub(crate) mod flat_outcome;
pub(crate) mod folder;
pub mod group;
pub(crate) mod push;
pub(crate) mod read;
pub mod records;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

use crate::bundle::record::{TaskFiles, REPO_BUNDLE, SOLUTION_BUNDLE};
use crate::bundle::{Manifest, StoredVersion};

use configs::TaskConfig;
pub(crate) use folder::FolderWrite;
use folder::{Content, Plan};
pub(crate) use push::{PushOptions, PushReport};
use records::Split;

/// The largest data file the Hub takes without LFS, and our shard limit.
pub(crate) const MAX_SHARD_BYTES: u64 = 8 * 1024 * 1024;

/// Everything `publish` needs.
#[derive(Debug, Clone)]
pub(crate) struct PublishOptions {
    /// A finished version directory `OUT/DATASET/VERSION` (with manifest.json).
    pub(crate) dataset_dir: PathBuf,
    /// The folder to write.
    pub(crate) out: PathBuf,
    pub(crate) repo_id: Option<String>,
    pub(crate) license: String,
    /// Default: `<dataset> <version>`.
    pub(crate) pretty_name: Option<String>,
    /// Card tags besides the base ones.
    pub(crate) tags: Vec<String>,
    /// Fraction of tasks in the test split, in [0, 1].
    pub(crate) test_ratio: f64,
    /// Shard size limit, at most [`MAX_SHARD_BYTES`].
    pub(crate) max_shard_bytes: u64,
    pub(crate) push: Option<PushOptions>,
}

/// What `publish` did.
#[derive(Debug, Clone)]
pub(crate) struct PublishReport {
    pub(crate) out: PathBuf,
    pub(crate) dataset: String,
    pub(crate) version: String,
    pub(crate) write: FolderWrite,
    pub(crate) tasks: usize,
    /// Rows per (config, split), `default` and `solutions` included.
    pub(crate) rows: BTreeMap<(String, String), usize>,
    /// Every data shard: relative path and size.
    pub(crate) shards: Vec<(String, u64)>,
    pub(crate) files: usize,
    pub(crate) bytes: u64,
    /// Files routed through LFS by size (bundles aside).
    pub(crate) large_files: Vec<String>,
    pub(crate) push: Option<PushReport>,
}

/// A finished version, read and checked.
#[derive(Debug)]
pub(crate) struct Version {
    pub(crate) dir: PathBuf,
    pub(crate) manifest: Manifest,
    pub(crate) manifest_bytes: Vec<u8>,
    /// Tasks in manifest order, with their files.
    pub(crate) tasks: Vec<TaskFiles>,
}

/// Publishes `options.dataset_dir` to `options.out` (and pushes it if asked).
pub(crate) fn publish(options: &PublishOptions) -> Result<PublishReport> {
    check_options(options)?;
    let version = load_version(&options.dataset_dir)?;
    refuse_out_inside(&version.dir, &options.out)?;
    let built = build_plan(&version, options)?;
    let write = folder::write_folder(&options.out, &built.plan)?;
    let push = match &options.push {
        Some(push_options) => Some(push::push(&options.out, &version.manifest, push_options)?),
        None => None,
    };
    Ok(PublishReport {
        out: options.out.clone(),
        dataset: version.manifest.dataset.clone(),
        version: version.manifest.version.clone(),
        write,
        tasks: version.tasks.len(),
        rows: built.rows,
        shards: built.shards,
        files: built.plan.len(),
        bytes: built.plan.values().map(Content::len).sum(),
        large_files: built.large_files,
        push,
    })
}

fn check_options(options: &PublishOptions) -> Result<()> {
    if !(0.0..=1.0).contains(&options.test_ratio) {
        bail!("--test-ratio {}: must be between 0 and 1", options.test_ratio);
    }
    if options.max_shard_bytes == 0 || options.max_shard_bytes > MAX_SHARD_BYTES {
        bail!("--max-shard-bytes {}: must be between 1 and {MAX_SHARD_BYTES} (8 MiB)", options.max_shard_bytes);
    }
    if options.license.is_empty()
        || !options
            .license
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '.' | '+'))
    {
        bail!("--license {:?}: use a Hub license id such as mit, apache-2.0, cc-by-4.0 or other", options.license);
    }
    if let Some(repo) = &options.repo_id {
        if !valid_repo_id(repo) {
            bail!("--repo-id {repo:?}: use OWNER/NAME (letters, digits, `-`, `_`, `.`)");
        }
    }
    if let Some(push) = &options.push {
        push::check_options(push)?;
    }
    for tag in &options.tags {
        if tag.is_empty() || tag.chars().any(|c| c.is_control()) {
            bail!("--tags: empty or unprintable tag {tag:?}");
        }
    }
    Ok(())
}

fn valid_repo_id(repo: &str) -> bool {
    let part_ok = |p: &str| {
        !p.is_empty()
            && !p.starts_with(['.', '-'])
            && p.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    matches!(repo.split('/').collect::<Vec<_>>().as_slice(), [owner, name] if part_ok(owner) && part_ok(name))
}

/// Writing the published folder inside the version would change the version.
fn refuse_out_inside(version_dir: &Path, out: &Path) -> Result<()> {
    let version = version_dir.canonicalize().unwrap_or_else(|_| version_dir.to_path_buf());
    let mut probe = out.to_path_buf();
    // `out` may not exist yet: canonicalize its nearest existing ancestor.
    let mut tail = Vec::new();
    while !probe.exists() {
        match (probe.file_name(), probe.parent()) {
            (Some(name), Some(parent)) => {
                tail.push(name.to_os_string());
                probe = if parent.as_os_str().is_empty() { PathBuf::from(".") } else { parent.to_path_buf() };
            }
            _ => return Ok(()),
        }
    }
    let mut resolved = probe.canonicalize().unwrap_or(probe);
    for name in tail.into_iter().rev() {
        resolved.push(name);
    }
    if resolved.starts_with(&version) {
        bail!(
            "{}: --out is inside the dataset version {}; choose a folder outside it",
            out.display(),
            version_dir.display()
        );
    }
    Ok(())
}

/// Reads a finished version: the manifest, then every task.json and bundle, each
/// checked against the sha256 recorded for it.
pub(crate) fn load_version(dir: &Path) -> Result<Version> {
    if !dir.exists() {
        bail!(
            "{}: no such dataset version folder; pass --dataset OUT/DATASET/VERSION (e.g. generated/mergeforge-embedded/1.0.0)",
            dir.display()
        );
    }
    if !dir.is_dir() {
        bail!("{}: not a folder; pass --dataset OUT/DATASET/VERSION", dir.display());
    }
    let manifest_path = dir.join("manifest.json");
    if !manifest_path.exists() {
        bail!("{}", missing_manifest_message(dir));
    }
    let stored = StoredVersion::load(dir)?;
    if stored.tasks.is_empty() {
        bail!("{}: the version has no tasks; nothing to publish", manifest_path.display());
    }
    Ok(Version {
        dir: dir.to_path_buf(),
        manifest: stored.manifest,
        manifest_bytes: stored.manifest_bytes,
        tasks: stored.tasks,
    })
}

fn missing_manifest_message(dir: &Path) -> String {
    let versions: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter(|e| e.path().join("manifest.json").is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    if let Some(first) = versions.iter().min() {
        return format!(
            "{}: no manifest.json here, but {} has one; pass the version folder, e.g. --dataset {}",
            dir.display(),
            first,
            dir.join(first).display()
        );
    }
    format!(
        "{}: no manifest.json: the version is unfinished (gen-tasks writes the manifest last); re-run gen-tasks to finish it",
        dir.display()
    )
}

/// A task id and its JSONL line.
type IdLine = (String, Vec<u8>);

struct Built {
    plan: Plan,
    rows: BTreeMap<(String, String), usize>,
    shards: Vec<(String, u64)>,
    large_files: Vec<String>,
}

/// Every file of the published folder, in memory except the bundles.
fn build_plan(version: &Version, options: &PublishOptions) -> Result<Built> {
    let mut plan = Plan::new();
    let mut by_cell: BTreeMap<(TaskConfig, Split), Vec<IdLine>> = BTreeMap::new();
    let mut solutions: BTreeMap<Split, Vec<IdLine>> = BTreeMap::new();
    let mut groups: BTreeMap<Split, BTreeSet<String>> = BTreeMap::new();
    for files in &version.tasks {
        let task = &files.task;
        let group = group::group_of(task, &files.solution);
        let split = records::split_of(&group, options.test_ratio);
        groups.entry(split).or_default().insert(group.clone());
        let line = records::jsonl_line(&records::task_record(task))?;
        let config = TaskConfig::of(task.family, task.difficulty.level);
        by_cell.entry((config, split)).or_default().push((task.id.clone(), line));
        let line = records::jsonl_line(&records::solution_record(task, &files.solution, group))?;
        solutions.entry(split).or_default().push((task.id.clone(), line));
        let dir = version.dir.join("tasks").join(&task.id);
        for (path, name, sha256, len) in [
            (records::bundle_path(&task.id), REPO_BUNDLE, &task.sha256.repo_bundle, files.repo_bundle.len()),
            (
                records::solution_bundle_path(&task.id),
                SOLUTION_BUNDLE,
                &task.sha256.solution_bundle,
                files.solution_bundle.len(),
            ),
        ] {
            plan.insert(path, Content::Copy { from: dir.join(name), sha256: sha256.clone(), len: len as u64 });
        }
    }
    let mut rows = BTreeMap::new();
    let mut config_rows = BTreeMap::new();
    let mut shards = Vec::new();
    let mut add_shards = |folder: String, split: Split, lines: &[IdLine], plan: &mut Plan| -> Result<()> {
        for (index, shard) in records::shard_lines(lines, options.max_shard_bytes)?.into_iter().enumerate() {
            let path = format!("{folder}/{}", records::shard_name(split, index));
            shards.push((path.clone(), shard.len() as u64));
            plan.insert(path, Content::Bytes(shard));
        }
        Ok(())
    };
    for ((config, split), lines) in &by_cell {
        config_rows.insert((*config, *split), lines.len());
        rows.insert((config.name().to_string(), split.name().to_string()), lines.len());
        *rows.entry((configs::DEFAULT_CONFIG.to_string(), split.name().to_string())).or_insert(0) += lines.len();
        add_shards(format!("{}/{}", configs::TASKS_DATA, config.name()), *split, lines, &mut plan)?;
    }
    for (split, lines) in &solutions {
        rows.insert((configs::SOLUTIONS_CONFIG.to_string(), split.name().to_string()), lines.len());
        add_shards(configs::SOLUTIONS_DATA.to_string(), *split, lines, &mut plan)?;
    }
    let manifest = &version.manifest;
    let pretty_name =
        options.pretty_name.clone().unwrap_or_else(|| format!("{} {}", manifest.dataset, manifest.version));
    let readme = card::readme(&card::CardInfo {
        manifest,
        license: &options.license,
        pretty_name: &pretty_name,
        repo_id: options.repo_id.as_deref(),
        tags: &options.tags,
        test_ratio: options.test_ratio,
        rows: &config_rows,
        groups: &groups.iter().map(|(split, names)| (*split, names.len())).collect(),
    });
    plan.insert("README.md".into(), Content::Bytes(readme.into_bytes()));
    plan.insert("manifest.json".into(), Content::Bytes(version.manifest_bytes.clone()));
    let large_files: Vec<String> = plan
        .iter()
        .filter(|(path, content)| content.len() > card::LFS_THRESHOLD && !path.ends_with(".bundle"))
        .map(|(path, _)| path.clone())
        .collect();
    plan.insert(".gitattributes".into(), Content::Bytes(card::gitattributes(&large_files).into_bytes()));
    Ok(Built { plan, rows, shards, large_files })
}
