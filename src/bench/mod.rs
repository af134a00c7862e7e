//! `mergeforge bench`: what generating tasks costs on a substrate, measured side by
//! side in one run on the same candidates.
//!
//! This module owns the measurements and the [`BenchReport`]; it drives the real
//! pipeline ([`pipeline::gen_tasks`]) and the real forge and merge stages, and never
//! changes what they do:
//!
//! - **selection**: the same gen-tasks options run twice, `--selection coverage` then
//!   `--selection full`, each with a fresh temporary outcome cache (and coverage map) and
//!   output folder. Cost is CPU time (user + system) of this process and its children
//!   (`getrusage` deltas), so validated tasks per CPU-minute compare fairly whatever else
//!   the machine does; the kept tasks of both modes are compared id by id (level, every
//!   recorded pass/fail verdict) and so are the rejection counts.
//! - **outside tests**: `1 - test_time / wall` per mode, where `test_time` sums the wall
//!   time of the sandboxed test runs; only meaningful with one worker (`--jobs 1`).
//! - **merges**: the commit pairs (ours, theirs) of the same candidates, written to a
//!   scratch repository, merged in process with git2 ([`merge::merge`]) and by spawning
//!   `git merge-tree --write-tree` once per pair.
//! - **memory**: peak resident set of this process and of its largest child.
//!
//! [`env`](mod@env) is `mergeforge bench env`: the served environment's resets, on both reset
//! paths side by side.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde::Serialize;

use crate::forge::commits::write_task_commits;
use crate::forge::{self, ForgeInput};
use crate::merge::{self, MergeResult};
use crate::pipeline::{self, GenOptions, GenReport};
use crate::pytest::confirm::ConfirmationStats;
use crate::pytest::select::SelectionMode;
use crate::substrate;
use crate::validate::Rejection;

pub(crate) mod env;

/// The selection modes measured, in the order they run. Coverage goes first, so any
/// warm-up cost (cold file caches) falls on it, not on the baseline it is compared to.
pub(crate) const MODES: [SelectionMode; 2] = [SelectionMode::Coverage, SelectionMode::Full];

/// The git2 merges are repeated until they have taken at least this long (one pass at
/// least), so the rate is not the noise of a few milliseconds.
const MIN_GIT2_TIME: Duration = Duration::from_millis(500);
/// At most this many passes over the pairs with git2.
const MAX_GIT2_PASSES: usize = 50;

/// Everything a benchmark measures.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct BenchReport {
    /// Substrate names, in order.
    pub(crate) substrates: Vec<String>,
    pub(crate) seed: u64,
    pub(crate) jobs: usize,
    /// One run per mode of [`MODES`].
    pub(crate) modes: Vec<ModeRun>,
    /// Validated tasks per CPU-minute with coverage selection ÷ the same with full runs
    /// (`None` when the full run kept no task).
    pub(crate) selection_speedup: Option<f64>,
    /// Whether both modes kept the same task ids with the same levels and verdicts, and
    /// rejected the same numbers of candidates for the same reasons.
    pub(crate) identical_verdicts: bool,
    /// What differs, one line each (empty when identical).
    pub(crate) differences: Vec<String>,
    /// The coverage run's share of wall time outside test runs (`None` unless `jobs` is 1).
    pub(crate) share_outside_tests: Option<f64>,
    pub(crate) merges: MergeBench,
    pub(crate) peak_memory: PeakMemory,
}

/// One gen-tasks run in one selection mode.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ModeRun {
    pub(crate) selection: SelectionMode,
    /// Validated tasks (kept before `--max-tasks`).
    pub(crate) tasks: usize,
    pub(crate) candidates_tried: usize,
    pub(crate) rejected: BTreeMap<Rejection, usize>,
    /// Written tasks by level.
    pub(crate) by_level: BTreeMap<String, usize>,
    pub(crate) wall_seconds: f64,
    /// User + system time of this process and its children during the run.
    pub(crate) cpu_seconds: f64,
    /// Sandboxed test runs executed (every cache starts empty).
    pub(crate) test_runs: usize,
    /// Test cases those runs executed (pytest's summary counts).
    pub(crate) test_cases: usize,
    /// Of `test_runs`, those pytest fork servers ran.
    pub(crate) served_runs: usize,
    /// Summed wall time of those runs.
    pub(crate) test_seconds: f64,
    /// Of those runs (and cache hits), the ones that confirmed another run's verdict,
    /// by kind, with their time (see [`crate::pytest::confirm`]).
    pub(crate) confirmations: ConfirmationStats,
    /// Tests seen flipping between two runs of one tree, over all substrates.
    pub(crate) flaky_tests: usize,
    pub(crate) tasks_per_cpu_minute: f64,
    /// `1 - test_seconds / wall_seconds` (`None` unless `jobs` is 1).
    pub(crate) share_outside_tests: Option<f64>,
}

/// In-process merges against spawned `git merge-tree`, on the same commit pairs.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MergeBench {
    pub(crate) pairs: usize,
    /// Pairs git2 found conflicting (or unsupported).
    pub(crate) conflicted: usize,
    /// Pairs where git and git2 agree on conflict versus clean.
    pub(crate) agreeing: usize,
    pub(crate) git2_passes: usize,
    pub(crate) git2_per_second: f64,
    pub(crate) git_cli_per_second: f64,
    /// `git2_per_second / git_cli_per_second`.
    pub(crate) ratio: f64,
}

/// Peak resident set sizes, in KiB (`getrusage` `ru_maxrss`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PeakMemory {
    pub(crate) self_kib: u64,
    /// The largest child process (a test run, git, pip).
    pub(crate) children_kib: u64,
}

/// Runs the benchmark. `options` are gen-tasks options; `selection`, `cache_dir` and
/// `out` are replaced per mode (temporary folders, removed afterwards). Progress lines
/// go to stderr.
pub(crate) fn run(options: &GenOptions) -> Result<BenchReport> {
    let substrates = warm_up(options)?;
    let mut modes = Vec::new();
    let mut verdicts = Vec::new();
    for mode in MODES {
        log::info!("bench: gen-tasks --selection {} (fresh cache) ...", mode.name());
        let (run, tasks) = run_mode(options, mode)?;
        log::info!(
            "bench: {} kept {} tasks of {} candidates in {:.1}s wall, {:.1}s CPU, {} test runs ({} confirmations, {} overturned, {:.1}s)",
            mode.name(),
            run.tasks,
            run.candidates_tried,
            run.wall_seconds,
            run.cpu_seconds,
            run.test_runs,
            run.confirmations.total(),
            run.confirmations.overturned,
            run.confirmations.time.as_secs_f64()
        );
        modes.push(run);
        verdicts.push(tasks);
    }
    let differences = compare(&modes, &verdicts);
    log::info!("bench: merging the same candidates' commit pairs with git2 and with git merge-tree ...");
    let merges = bench_merges(options)?;
    let selection_speedup = match (modes.first(), modes.get(1)) {
        (Some(coverage), Some(full)) if full.tasks_per_cpu_minute > 0.0 => {
            Some(coverage.tasks_per_cpu_minute / full.tasks_per_cpu_minute)
        }
        _ => None,
    };
    Ok(BenchReport {
        substrates,
        seed: options.seed,
        jobs: options.jobs,
        share_outside_tests: modes.first().and_then(|m| m.share_outside_tests),
        modes,
        selection_speedup,
        identical_verdicts: differences.is_empty(),
        differences,
        merges,
        peak_memory: peak_memory(),
    })
}

/// Loads every substrate and makes sure its venv exists, so that neither mode pays for
/// building one. Returns the substrate names.
fn warm_up(options: &GenOptions) -> Result<Vec<String>> {
    let mut names = Vec::new();
    for spec in &options.substrates {
        let loaded = substrate::load(spec)?;
        loaded.config.python_env()?;
        names.push(loaded.name);
    }
    Ok(names)
}

/// The verdicts of one kept task: its level and every pass/fail it records.
#[derive(Debug, Clone, PartialEq)]
struct TaskVerdict {
    level: String,
    /// `validation.<path>` → passed.
    outcomes: BTreeMap<String, bool>,
}

fn run_mode(base: &GenOptions, mode: SelectionMode) -> Result<(ModeRun, BTreeMap<String, TaskVerdict>)> {
    let scratch = tempfile::Builder::new().prefix("mergeforge-bench-").tempdir().context("creating a bench folder")?;
    let mut options = base.clone();
    options.selection = mode;
    options.out = scratch.path().join("out");
    options.cache_dir = scratch.path().join("cache");
    let before = Usage::now();
    let started = Instant::now();
    let report = pipeline::gen_tasks(&options).with_context(|| format!("gen-tasks --selection {}", mode.name()))?;
    let wall = started.elapsed();
    let cpu = Usage::now().cpu.saturating_sub(before.cpu);
    let tasks = read_verdicts(&report)?;
    Ok((mode_run(mode, &report, wall, cpu, options.jobs), tasks))
}

fn mode_run(mode: SelectionMode, report: &GenReport, wall: Duration, cpu: Duration, jobs: usize) -> ModeRun {
    let minutes = cpu.as_secs_f64() / 60.0;
    let share = (jobs == 1 && wall > Duration::ZERO)
        .then(|| (1.0 - report.stats.runs.test_time.as_secs_f64() / wall.as_secs_f64()).clamp(0.0, 1.0));
    ModeRun {
        selection: mode,
        tasks: report.stats.kept,
        candidates_tried: report.stats.candidates_tried,
        rejected: report.stats.rejected.clone(),
        by_level: report.manifest.counts.by_level.iter().map(|(l, n)| (l.name().to_string(), *n)).collect(),
        wall_seconds: wall.as_secs_f64(),
        cpu_seconds: cpu.as_secs_f64(),
        test_runs: report.stats.runs.test_runs,
        test_cases: report.stats.runs.test_cases,
        served_runs: report.stats.runs.served_runs,
        test_seconds: report.stats.runs.test_time.as_secs_f64(),
        confirmations: report.stats.runs.confirmations,
        flaky_tests: report.stats.flaky_tests.values().map(Vec::len).sum(),
        tasks_per_cpu_minute: if minutes > 0.0 { report.stats.kept as f64 / minutes } else { 0.0 },
        share_outside_tests: share,
    }
}

/// Every written task's verdicts, read back from its `task.json`.
fn read_verdicts(report: &GenReport) -> Result<BTreeMap<String, TaskVerdict>> {
    let mut verdicts = BTreeMap::new();
    for entry in &report.manifest.tasks {
        let path = report.version_dir.join("tasks").join(&entry.id).join("task.json");
        let text = std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        let json: serde_json::Value =
            serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
        let mut outcomes = BTreeMap::new();
        collect_passed("validation", &json["validation"], &mut outcomes);
        verdicts.insert(entry.id.clone(), TaskVerdict { level: entry.level.name().to_string(), outcomes });
    }
    Ok(verdicts)
}

/// Every `passed` flag under `value`, by its dotted path.
fn collect_passed(path: &str, value: &serde_json::Value, out: &mut BTreeMap<String, bool>) {
    let Some(object) = value.as_object() else { return };
    for (key, child) in object {
        match (key.as_str(), child) {
            ("passed", serde_json::Value::Bool(passed)) => {
                out.insert(path.to_string(), *passed);
            }
            _ => collect_passed(&format!("{path}.{key}"), child, out),
        }
    }
}

/// What differs between the first mode and each other one, one line each.
fn compare(modes: &[ModeRun], verdicts: &[BTreeMap<String, TaskVerdict>]) -> Vec<String> {
    let mut out = Vec::new();
    let (Some(first), Some(first_tasks)) = (modes.first(), verdicts.first()) else { return out };
    for (other, other_tasks) in modes.iter().zip(verdicts).skip(1) {
        let (a, b) = (&first.selection, &other.selection);
        if first.rejected != other.rejected {
            out.push(format!("rejections: {:?} ({a}) vs {:?} ({b})", first.rejected, other.rejected));
        }
        for (id, verdict) in first_tasks {
            match other_tasks.get(id) {
                None => out.push(format!("task {id}: kept only with {a}")),
                Some(theirs) if theirs.level != verdict.level => {
                    out.push(format!("task {id}: level {} ({a}) vs {} ({b})", verdict.level, theirs.level))
                }
                Some(theirs) => {
                    for (path, passed) in &verdict.outcomes {
                        let other_passed = theirs.outcomes.get(path);
                        if other_passed != Some(passed) {
                            out.push(format!("task {id}: {path} passed {passed} ({a}) vs {other_passed:?} ({b})"));
                        }
                    }
                }
            }
        }
        for id in other_tasks.keys().filter(|id| !first_tasks.contains_key(*id)) {
            out.push(format!("task {id}: kept only with {b}"));
        }
    }
    out
}

/// Builds the candidates gen-tasks would try (the same seed, families and limits),
/// writes their commits to a scratch repository and times both ways of merging them.
fn bench_merges(options: &GenOptions) -> Result<MergeBench> {
    let scratch = tempfile::Builder::new().prefix("mergeforge-bench-merge-").tempdir()?;
    let repo = git2::Repository::init_bare(scratch.path()).context("creating the scratch repository")?;
    let pairs = commit_pairs(options, &repo)?;
    if pairs.is_empty() {
        // Candidates built without a test probe (a feature family whose intents need one
        // finds none here): the selection measurements above stand on their own.
        log::warn!("bench: no candidate to merge without a test probe for these families; merges not measured");
        return Ok(MergeBench {
            pairs: 0,
            conflicted: 0,
            agreeing: 0,
            git2_passes: 0,
            git2_per_second: 0.0,
            git_cli_per_second: 0.0,
            ratio: 0.0,
        });
    }
    let mut git2_conflicted = Vec::with_capacity(pairs.len());
    let started = Instant::now();
    let mut passes = 0;
    while passes == 0 || (started.elapsed() < MIN_GIT2_TIME && passes < MAX_GIT2_PASSES) {
        git2_conflicted.clear();
        for (ours, theirs) in &pairs {
            let result = merge::merge(&repo, *ours, *theirs)?;
            git2_conflicted.push(!matches!(result, MergeResult::Clean { .. }));
        }
        passes += 1;
    }
    let git2_time = started.elapsed();
    let started = Instant::now();
    let mut agreeing = 0;
    for ((ours, theirs), git2_says) in pairs.iter().zip(&git2_conflicted) {
        if git_merge_tree(scratch.path(), *ours, *theirs)? == *git2_says {
            agreeing += 1;
        }
    }
    let cli_time = started.elapsed();
    let git2_per_second = (pairs.len() * passes) as f64 / git2_time.as_secs_f64().max(1e-9);
    let git_cli_per_second = pairs.len() as f64 / cli_time.as_secs_f64().max(1e-9);
    Ok(MergeBench {
        pairs: pairs.len(),
        conflicted: git2_conflicted.iter().filter(|c| **c).count(),
        agreeing,
        git2_passes: passes,
        git2_per_second,
        git_cli_per_second,
        ratio: git2_per_second / git_cli_per_second,
    })
}

/// The (ours, theirs) commits of every candidate of every (substrate, family) cell.
fn commit_pairs(options: &GenOptions, repo: &git2::Repository) -> Result<Vec<(git2::Oid, git2::Oid)>> {
    let mut pairs = Vec::new();
    for spec in &options.substrates {
        let loaded = substrate::load(spec)?;
        let (modules, mutations) = pipeline::mutable_modules(&loaded)?;
        let table = forge::Family::site_table(&options.families, &loaded, &modules, None, None);
        let input = ForgeInput {
            substrate: &loaded,
            modules: &modules,
            mutations: &mutations,
            coverage: None,
            probe: None,
            site_table: &table,
            history: None,
            seed: options.seed,
            scale: crate::difficulty::Scale::Small,
        };
        for family in &options.families {
            for candidate in forge::ordered_candidates(*family, &input, options.candidates_per_cell) {
                let commits = write_task_commits(repo, &candidate)?;
                pairs.push((commits.ours, commits.theirs));
            }
        }
    }
    Ok(pairs)
}

/// Whether `git merge-tree --write-tree` finds a conflict (exit 1) or merges cleanly (0).
fn git_merge_tree(repo: &Path, ours: git2::Oid, theirs: git2::Oid) -> Result<bool> {
    let output = Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(["merge-tree", "--write-tree", &ours.to_string(), &theirs.to_string()])
        .output()
        .context("running git merge-tree: is git (2.38 or later) on PATH?")?;
    match output.status.code() {
        Some(0) => Ok(false),
        Some(1) => Ok(true),
        _ => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            bail!("git merge-tree --write-tree failed: {}; it needs git 2.38 or later", stderr.trim())
        }
    }
}

/// CPU time of this process and its waited-for children.
struct Usage {
    cpu: Duration,
}

impl Usage {
    fn now() -> Self {
        let cpu = [libc::RUSAGE_SELF, libc::RUSAGE_CHILDREN]
            .into_iter()
            .map(|who| {
                let usage = rusage(who);
                timeval(usage.ru_utime) + timeval(usage.ru_stime)
            })
            .sum();
        Usage { cpu }
    }
}

fn peak_memory() -> PeakMemory {
    let kib = |who| u64::try_from(rusage(who).ru_maxrss).unwrap_or(0);
    PeakMemory { self_kib: kib(libc::RUSAGE_SELF), children_kib: kib(libc::RUSAGE_CHILDREN) }
}

#[allow(unsafe_code)] // getrusage(2): the peak memory of children
fn rusage(who: libc::c_int) -> libc::rusage {
    // SAFETY: getrusage(2) fills the struct it is given; a zeroed rusage is a valid value.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(who, &mut usage);
        usage
    }
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(u64::try_from(tv.tv_sec).unwrap_or(0))
        + Duration::from_micros(u64::try_from(tv.tv_usec).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(selection: &str, rejected: &[(&str, usize)]) -> ModeRun {
        ModeRun {
            selection: <SelectionMode as clap::ValueEnum>::from_str(selection, false).unwrap(),
            tasks: 1,
            candidates_tried: 2,
            rejected: rejected
                .iter()
                .map(|(r, n)| (serde_json::from_value(serde_json::json!(r)).unwrap(), *n))
                .collect(),
            by_level: BTreeMap::new(),
            wall_seconds: 1.0,
            cpu_seconds: 1.0,
            test_runs: 1,
            test_cases: 3,
            served_runs: 0,
            test_seconds: 0.5,
            confirmations: ConfirmationStats::default(),
            flaky_tests: 0,
            tasks_per_cpu_minute: 60.0,
            share_outside_tests: Some(0.5),
        }
    }

    fn verdict(level: &str, ours: bool) -> TaskVerdict {
        let outcomes = [("validation.gold".to_string(), true), ("validation.ours".to_string(), ours)].into();
        TaskVerdict { level: level.into(), outcomes }
    }

    #[test]
    fn identical_modes_have_no_differences() {
        let modes = [run("coverage", &[("side-passes", 1)]), run("full", &[("side-passes", 1)])];
        let tasks: BTreeMap<String, TaskVerdict> = [("t1".to_string(), verdict("easy", false))].into();
        assert!(compare(&modes, &[tasks.clone(), tasks]).is_empty());
    }

    #[test]
    fn differences_are_listed() {
        let modes = [run("coverage", &[("side-passes", 1)]), run("full", &[])];
        let a: BTreeMap<String, TaskVerdict> =
            [("t1".to_string(), verdict("easy", false)), ("t2".to_string(), verdict("hard", false))].into();
        let b: BTreeMap<String, TaskVerdict> =
            [("t1".to_string(), verdict("easy", true)), ("t3".to_string(), verdict("hard", false))].into();
        let differences = compare(&modes, &[a, b]);
        assert_eq!(differences.len(), 4, "{differences:#?}");
        assert!(differences[1].contains("t1: validation.ours passed false (coverage) vs Some(true) (full)"));
        assert!(differences[2].contains("t2: kept only with coverage"));
        assert!(differences[3].contains("t3: kept only with full"));
    }

    #[test]
    fn passed_flags_are_collected_by_path() {
        let json = serde_json::json!({"gold": {"passed": true}, "baselines": {"union": {"passed": false,
            "ours_first": {"passed": false}}, "mergiraf": {"available": false}}});
        let mut out = BTreeMap::new();
        collect_passed("validation", &json, &mut out);
        assert_eq!(out.len(), 3);
        assert!(!out["validation.baselines.union"]);
        assert!(out["validation.gold"]);
    }
}
