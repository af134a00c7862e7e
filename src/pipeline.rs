//! `gen-tasks`: drives the stages from substrates to a written dataset version.
//!
//! Work is split into cells, one per (substrate, family). Each cell walks its
//! candidates in seeded order, in chunks validated in parallel, and keeps the first
//! `per_cell` that become tasks; the result never depends on `--jobs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

use crate::bundle::dataset::{self, VersionFiles, WriteResult};
use crate::bundle::manifest::{self, Counts, Generator, Manifest, SubstrateEntry, TaskEntry};
use crate::bundle::task::{self, Branches, ConflictRecord, FileRecord, MutationRecord, SubstrateRef, Task};
use crate::bundle::{gitbundle, task_id};
use crate::difficulty::{self, Difficulty, Features, Level};
use crate::forge::commits::{write_task_commits, TaskCommits};
use crate::forge::{self, Candidate, Family, ForgeInput};
use crate::merge::{self, MergeResult};
use crate::mutate::{self, Mutation, PyModule};
use crate::sandbox::python::ensure_venv;
use crate::sandbox::testrun::{OutcomeCache, TestRunner};
use crate::sandbox::user_cache_dir;
use crate::snapshot::{sha256_hex, Snapshot};
use crate::substrate::{self, Substrate, SubstrateSpec};
use crate::validate::{self, Rejection, Validation};

/// Everything that decides what `gen-tasks` produces, plus how it runs.
#[derive(Debug, Clone)]
pub struct GenOptions {
    /// Substrates to use, in order.
    pub substrates: Vec<SubstrateSpec>,
    pub out: PathBuf,
    /// Where test outcomes are cached (default `OUT/.mergeforge-cache`).
    pub cache_dir: PathBuf,
    pub dataset: String,
    pub version: String,
    pub seed: u64,
    pub max_tasks: Option<usize>,
    pub families: Vec<Family>,
    /// Tasks kept per (substrate, family).
    pub per_cell: usize,
    /// Candidates tried per (substrate, family) at most.
    pub candidates_per_cell: usize,
    pub jobs: usize,
    pub progress: bool,
    /// The canonical command line recorded in the manifest.
    pub command: Vec<String>,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct GenReport {
    pub version_dir: PathBuf,
    pub write: WriteResult,
    pub manifest: Manifest,
    pub candidates_tried: usize,
    pub kept: usize,
    pub rejected: BTreeMap<String, usize>,
    pub skipped_substrates: Vec<(String, String)>,
    pub elapsed: Duration,
}

/// A substrate ready for forging.
struct Prepared {
    substrate: Substrate,
    runner: TestRunner,
    modules: Vec<PyModule>,
    mutations: Vec<Vec<Mutation>>,
}

/// A kept candidate, before it is bundled.
struct Draft {
    substrate: usize,
    candidate: Candidate,
    commits: TaskCommits,
    conflicted: Snapshot,
    conflicts: Vec<merge::ConflictedFile>,
    validation: Validation,
    difficulty: Difficulty,
}

enum Verdict {
    Kept(Box<Draft>),
    Rejected(Rejection),
}

/// The embedded substrates: every folder with a `substrate.toml` under `substrates/`
/// (next to the working directory, else next to this crate's sources), sorted by name.
pub fn embedded_substrates() -> Result<Vec<SubstrateSpec>> {
    let local = PathBuf::from("substrates");
    let root = if local.is_dir() { local } else { Path::new(env!("CARGO_MANIFEST_DIR")).join("substrates") };
    let mut specs = Vec::new();
    let entries = std::fs::read_dir(&root)
        .with_context(|| format!("{}: no embedded substrates; pass --substrate PATH", root.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.join(substrate::config::CONFIG_FILE).is_file() {
            specs.push(SubstrateSpec { path, config_file: None, test_command: None });
        }
    }
    specs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(specs)
}

/// Runs the whole pipeline and writes the dataset version.
pub fn gen_tasks(options: &GenOptions) -> Result<GenReport> {
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(options.jobs.max(1)).build()?;
    let cache = OutcomeCache::new(&options.cache_dir.join("outcomes"));
    let mut skipped = Vec::new();
    let mut prepared = Vec::new();
    for spec in &options.substrates {
        match prepare(spec, &cache) {
            Ok(p) => prepared.push(p),
            Err(err) => {
                let name = spec.path.display().to_string();
                eprintln!("warning: substrate {name} skipped: {err:#}");
                skipped.push((name, format!("{err:#}")));
            }
        }
    }
    if prepared.is_empty() {
        bail!("no usable substrate: every substrate was skipped (see the warnings above)");
    }

    let scratch = tempfile::Builder::new().prefix("mergeforge-forge-").tempdir()?;
    git2::Repository::init_bare(scratch.path()).context("creating the scratch repository")?;
    let repo_path = scratch.path().to_path_buf();

    let mut cells: Vec<(usize, Vec<Candidate>)> = Vec::new();
    for (index, p) in prepared.iter().enumerate() {
        let input = ForgeInput { substrate: &p.substrate, modules: &p.modules, mutations: &p.mutations, seed: options.seed };
        for family in &options.families {
            cells.push((index, forge::ordered_candidates(*family, &input, options.candidates_per_cell)));
        }
    }
    let total: usize = cells.iter().map(|(_, c)| c.len()).sum();
    let bar = progress_bar(options.progress, total as u64);

    let results: Vec<Result<(Vec<Draft>, usize, BTreeMap<Rejection, usize>)>> = pool.install(|| {
        cells
            .into_par_iter()
            .map(|(index, candidates)| run_cell(&prepared[index], index, candidates, options.per_cell, &repo_path, &bar))
            .collect()
    });
    bar.finish_and_clear();

    let mut drafts = Vec::new();
    let mut tried = 0;
    let mut rejected: BTreeMap<String, usize> = BTreeMap::new();
    for result in results {
        let (cell_drafts, cell_tried, cell_rejected) = result?;
        drafts.extend(cell_drafts);
        tried += cell_tried;
        for (reason, n) in cell_rejected {
            *rejected.entry(reason.name().to_string()).or_default() += n;
        }
    }
    let kept = drafts.len();
    if kept == 0 {
        let reasons: Vec<String> = rejected.iter().map(|(r, n)| format!("{r} {n}")).collect();
        bail!(
            "no candidate became a task ({tried} tried; rejected: {}); try more --candidates-per-cell, other --families or a substrate with stricter tests",
            if reasons.is_empty() { "none".to_string() } else { reasons.join(", ") }
        );
    }
    if let Some(max) = options.max_tasks {
        drafts.truncate(max);
    }

    let repo = git2::Repository::open_bare(&repo_path)?;
    let (files, manifest) = assemble(&repo, &prepared, &drafts, options)?;
    let manifest_bytes = task::to_json_bytes(&manifest)?;
    let (write, version_dir) =
        dataset::write_version(&options.out, &options.dataset, &options.version, &files, &manifest_bytes)?;
    Ok(GenReport {
        version_dir,
        write,
        manifest,
        candidates_tried: tried,
        kept,
        rejected,
        skipped_substrates: skipped,
        elapsed: started.elapsed(),
    })
}

fn prepare(spec: &SubstrateSpec, cache: &OutcomeCache) -> Result<Prepared> {
    let substrate = substrate::load(spec)?;
    let python = ensure_venv(&user_cache_dir(), &substrate.config.python_deps)?;
    let runner = TestRunner::new(
        &substrate.config.test_command,
        &substrate.config.env,
        Duration::from_secs(substrate.config.timeout_s),
        &python,
        Some(cache.clone()),
    );
    let head = runner.run(&substrate.files)?;
    if !head.passed {
        let shown: Vec<&str> = head.failed_tests.iter().take(5).map(String::as_str).collect();
        bail!(
            "tests fail at HEAD ({}{}); fix them or the test command in substrate.toml",
            shown.join(", "),
            if head.failed_tests.len() > 5 { ", ..." } else { "" }
        );
    }
    let mut modules = Vec::new();
    for source in substrate.mutable_sources() {
        match PyModule::parse(&source.path, &source.text) {
            Ok(module) => modules.push(module),
            Err(err) => eprintln!("warning: {}: {err}; file skipped", substrate.name),
        }
    }
    if modules.is_empty() {
        bail!("no Python source to mutate under source_dirs {:?}", substrate.config.source_dirs);
    }
    let mutations = modules.iter().map(mutate::all_mutations).collect();
    Ok(Prepared { substrate, runner, modules, mutations })
}

fn progress_bar(visible: bool, total: u64) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} candidates · {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

type CellResult = (Vec<Draft>, usize, BTreeMap<Rejection, usize>);

fn run_cell(
    prepared: &Prepared,
    index: usize,
    candidates: Vec<Candidate>,
    per_cell: usize,
    repo_path: &Path,
    bar: &ProgressBar,
) -> Result<CellResult> {
    let mut kept = Vec::new();
    let mut rejected = BTreeMap::new();
    let mut tried = 0;
    let total = candidates.len();
    let chunk = per_cell.max(2);
    for batch in candidates.chunks(chunk) {
        if kept.len() >= per_cell {
            break;
        }
        let verdicts: Vec<Result<Verdict>> = batch
            .par_iter()
            .map(|candidate| {
                let verdict = judge(prepared, index, candidate, repo_path);
                bar.inc(1);
                verdict
            })
            .collect();
        for verdict in verdicts {
            tried += 1;
            match verdict? {
                Verdict::Kept(draft) if kept.len() < per_cell => kept.push(*draft),
                Verdict::Kept(_) => {}
                Verdict::Rejected(reason) => *rejected.entry(reason).or_default() += 1,
            }
        }
        bar.set_message(format!("{} kept", kept.len()));
    }
    bar.inc((total - tried.min(total)) as u64);
    Ok((kept, tried, rejected))
}

fn judge(prepared: &Prepared, index: usize, candidate: &Candidate, repo_path: &Path) -> Result<Verdict> {
    let repo = git2::Repository::open_bare(repo_path)?;
    let commits = write_task_commits(&repo, &candidate.base, &candidate.ours, &candidate.theirs, &candidate.gold, &candidate.summary)?;
    let (conflicted, conflicts) = match merge::merge(&repo, commits.ours, commits.theirs)? {
        MergeResult::Clean => return Ok(Verdict::Rejected(Rejection::CleanMerge)),
        MergeResult::Unsupported(_) => return Ok(Verdict::Rejected(Rejection::UnsupportedConflict)),
        MergeResult::Conflicted { tree, files } => (tree, files),
    };
    let paths: Vec<String> = conflicts.iter().map(|c| c.path.clone()).collect();
    let validation = match validate::validate(candidate, &conflicted, &paths, &prepared.runner)? {
        Ok(validation) => validation,
        Err(reason) => return Ok(Verdict::Rejected(reason)),
    };
    let outside = edits_outside_conflicts(&conflicted, &candidate.gold, &paths);
    let mut operators: Vec<String> = candidate.mutations.iter().map(|m| m.operator.to_string()).collect();
    operators.sort();
    operators.dedup();
    let features = Features {
        hunks: conflicts.iter().map(|c| c.hunks).sum(),
        conflicted_lines: conflicts.iter().map(|c| c.conflicted_lines).sum(),
        conflicted_files: conflicts.len(),
        files_outside_conflicts: outside.len(),
        failing_tests_ours: validation.ours.failed_tests.len(),
        failing_tests_theirs: validation.theirs.failed_tests.len(),
        operators,
        family: candidate.family.name().to_string(),
    };
    let difficulty = difficulty::assess(&validation, features);
    Ok(Verdict::Kept(Box::new(Draft {
        substrate: index,
        candidate: candidate.clone(),
        commits,
        conflicted,
        conflicts,
        validation,
        difficulty,
    })))
}

/// Paths outside the conflicts where the merged tree and gold differ.
fn edits_outside_conflicts(merged: &Snapshot, gold: &Snapshot, conflicted: &[String]) -> Vec<String> {
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

fn assemble(
    repo: &git2::Repository,
    prepared: &[Prepared],
    drafts: &[Draft],
    options: &GenOptions,
) -> Result<(VersionFiles, Manifest)> {
    let mut files = VersionFiles::new();
    let mut entries = Vec::new();
    let mut by_level: BTreeMap<Level, usize> = BTreeMap::new();
    let mut by_family: BTreeMap<Family, usize> = BTreeMap::new();
    let mut per_substrate = vec![0usize; prepared.len()];
    for draft in drafts {
        let substrate = &prepared[draft.substrate].substrate;
        let id = task_id(&substrate.name, &substrate.tree_id, draft.candidate.family, &draft.commits);
        if files.contains_key(&format!("tasks/{id}/task.json")) {
            continue;
        }
        let bundle = gitbundle::write_bundle(repo, &gitbundle::task_refs(&draft.commits), draft.commits.ours)?;
        let record = task_record(&id, substrate, draft, &bundle);
        let json = task::to_json_bytes(&record)?;
        entries.push(TaskEntry {
            id: id.clone(),
            level: draft.difficulty.level,
            family: draft.candidate.family,
            substrate: substrate.name.clone(),
            task_sha256: sha256_hex(&json),
        });
        *by_level.entry(draft.difficulty.level).or_default() += 1;
        *by_family.entry(draft.candidate.family).or_default() += 1;
        per_substrate[draft.substrate] += 1;
        files.insert(format!("tasks/{id}/task.json"), json);
        files.insert(format!("tasks/{id}/repo.bundle"), bundle);
    }
    for level in Level::ALL {
        by_level.entry(level).or_default();
    }
    let manifest = Manifest {
        schema: manifest::MANIFEST_SCHEMA.to_string(),
        dataset: options.dataset.clone(),
        version: options.version.clone(),
        generator: Generator { name: crate::GENERATOR.into(), version: crate::GENERATOR_VERSION.into() },
        command: options.command.clone(),
        seed: options.seed,
        substrates: prepared
            .iter()
            .zip(&per_substrate)
            .map(|(p, n)| SubstrateEntry {
                name: p.substrate.name.clone(),
                commit: p.substrate.commit.clone(),
                tree: p.substrate.tree_id.clone(),
                tasks: *n,
            })
            .collect(),
        counts: Counts { tasks: entries.len(), by_level, by_family },
        tasks: entries,
    };
    Ok((files, manifest))
}

fn task_record(id: &str, substrate: &Substrate, draft: &Draft, bundle: &[u8]) -> Task {
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
                operator: m.operator.to_string(),
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
    }
}
