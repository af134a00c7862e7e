//! `mergeforge bench`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::{Args, Subcommand};

use crate::bench::env::{EnvBenchOptions, EnvBenchReport, Latency};
use crate::bench::{self, BenchReport, ModeRun};
use crate::pytest::confirm::Confirmation;

/// Measure what generating tasks costs on a substrate.
///
/// Runs gen-tasks twice on the same candidates (same seed, families and limits), first
/// with --selection coverage, then with --selection full, each with a fresh temporary
/// outcome cache, and reports validated tasks per CPU-minute (user + system time of
/// mergeforge and its children) in both modes and their ratio, whether both modes kept
/// the same tasks with the same levels and verdicts, and the share of wall time spent
/// outside test runs (parse, mutate, merge, bundle; measured with --jobs 1). It then
/// merges the same candidates' commit pairs in process with git2 and by spawning
/// `git merge-tree --write-tree` per pair (merges per second, ratio), and reports the
/// peak memory of mergeforge and of its largest child. Nothing is written outside
/// temporary folders. Progress goes to stderr.
///
/// `mergeforge bench env` measures a served environment's resets instead.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment, args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub(crate) struct BenchArgs {
    #[command(subcommand)]
    pub(crate) command: Option<BenchCommand>,

    /// A substrate: a folder with substrate.toml, or a git repository. Repeatable.
    #[arg(long = "substrate", value_name = "PATH", required = true)]
    pub(crate) substrates: Vec<PathBuf>,

    /// A substrate.toml for the --substrate in the same position (or naming its own
    /// repository with a `path` key). Repeatable.
    #[arg(long = "substrate-config", value_name = "FILE")]
    pub(crate) substrate_configs: Vec<PathBuf>,

    /// Test command for substrates without a config, e.g. "python -m pytest -q tests".
    #[arg(long, value_name = "CMD")]
    pub(crate) test_cmd: Option<String>,

    /// Families to use, comma-separated (as for gen-tasks). Default: all.
    #[arg(long, value_name = "LIST")]
    pub(crate) families: Option<String>,

    /// Tasks kept per (substrate, family).
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub(crate) per_cell: usize,

    /// Candidates tried per (substrate, family) at most (default as for gen-tasks).
    #[arg(long, value_name = "N")]
    pub(crate) candidates_per_cell: Option<usize>,

    /// Keep at most this many tasks in total.
    #[arg(long, value_name = "N")]
    pub(crate) max_tasks: Option<usize>,

    /// Seed for the candidate order.
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,

    /// Parallel workers. The share of time outside test runs is only reported with 1.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub(crate) jobs: usize,

    /// Print the report as JSON on stdout instead of a table.
    #[arg(long)]
    pub(crate) json: bool,

    /// Do not draw gen-tasks' progress bars.
    #[arg(long)]
    pub(crate) no_progress: bool,

    /// Level without the mergiraf rung (as for gen-tasks). Without it, mergiraf runs
    /// from PATH or is installed into the cache before the first run.
    #[arg(long)]
    pub(crate) no_mergiraf: bool,
}

#[derive(Debug, Subcommand)]
pub(crate) enum BenchCommand {
    // About and long help come from `EnvBenchArgs`'s doc comment.
    Env(EnvBenchArgs),
}

/// Measure how fast a served environment resets, on both reset paths side by side.
///
/// For each reset path (template: a copy of the task's repository prepared on its first
/// reset; clone: the previous path, git fetch, checkout and merge on every reset) starts
/// `mergeforge serve` on loopback and drives it with the official OpenEnv Python client
/// (openenv-core from PyPI, in a cached venv): the first reset of every task, then
/// --resets sequential resets on one session, then --sessions sessions resetting at the
/// same moment, each then playing its task's gold episode (two sessions per task) with
/// a check that none sees another's edits or state. Reports reset latency p50/p95 as
/// the client saw it, solved episodes, errors, cross-talk and the server's peak resident
/// set, and the ratios clone / template. Measure a release build on an idle machine: the
/// load average before and after is printed.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct EnvBenchArgs {
    /// Dataset version directory (holds manifest.json).
    #[arg(long, value_name = "DIR", default_value = "generated/mergeforge-embedded/1.0.0")]
    pub(crate) dataset: PathBuf,

    /// Sessions resetting at the same moment (also the server's --max-sessions).
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub(crate) sessions: usize,

    /// Sequential resets timed after the first reset of every task.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub(crate) resets: usize,

    /// Use only the dataset's first N tasks (by id). Default: all.
    #[arg(long, value_name = "N")]
    pub(crate) tasks: Option<usize>,

    /// Where the servers' work directories (templates, episodes) go, e.g. a tmpfs.
    /// Default: the system temp directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) work_dir: Option<PathBuf>,

    /// Print the report as JSON on stdout instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn run(args: BenchArgs) -> Result<ExitCode> {
    if let Some(BenchCommand::Env(env)) = args.command {
        return run_env(env);
    }
    if args.jobs == 0 {
        bail!("--jobs must be at least 1");
    }
    let mut options = super::recorded::options_from_command(&gen_tasks_command(&args))?;
    options.progress = !args.no_progress && !args.json;
    crate::resolve::mergiraf::prepare(options.no_mergiraf, options.progress)?;
    let report = bench::run(&options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// The gen-tasks command line both modes share (its options are parsed exactly as
/// gen-tasks parses them).
fn gen_tasks_command(args: &BenchArgs) -> Vec<String> {
    let mut argv = vec!["mergeforge".to_string(), "gen-tasks".to_string()];
    for path in &args.substrates {
        argv.extend(["--substrate".to_string(), path.display().to_string()]);
    }
    for path in &args.substrate_configs {
        argv.extend(["--substrate-config".to_string(), path.display().to_string()]);
    }
    let mut flag = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            argv.extend([format!("--{name}"), value]);
        }
    };
    flag("test-cmd", args.test_cmd.clone());
    flag("families", args.families.clone());
    flag("per-cell", Some(args.per_cell.to_string()));
    flag("candidates-per-cell", args.candidates_per_cell.map(|n| n.to_string()));
    flag("max-tasks", args.max_tasks.map(|n| n.to_string()));
    flag("seed", Some(args.seed.to_string()));
    flag("jobs", Some(args.jobs.to_string()));
    flag("dataset", Some("mergeforge-bench".to_string()));
    if args.no_mergiraf {
        argv.push("--no-mergiraf".to_string());
    }
    argv
}

fn print_report(report: &BenchReport) {
    println!("bench on {} (seed {}, jobs {})", report.substrates.join(", "), report.seed, report.jobs);
    println!();
    println!(
        "{:<10} {:>6} {:>6} {:>9} {:>7} {:>10} {:>9} {:>8} {:>8} {:>14} {:>14}",
        "selection",
        "tasks",
        "tried",
        "test runs",
        "forked",
        "test cases",
        "tests s",
        "wall s",
        "CPU s",
        "tasks/CPU-min",
        "outside tests"
    );
    for mode in &report.modes {
        print_mode(mode);
    }
    for mode in &report.modes {
        let c = &mode.confirmations;
        println!(
            "{:<10} confirmations {} ({} selected-pass, {} scaled-timeout, {} order-dependent, {} selected-fail, {} repeat), {} overturned, {:.1}s; {} files run alone, {:.1}s; {} flaky tests",
            mode.selection,
            c.total(),
            c.of(Confirmation::SelectedPass),
            c.of(Confirmation::ScaledTimeout),
            c.of(Confirmation::OrderDependent),
            c.of(Confirmation::SelectedFail),
            c.of(Confirmation::Repeat),
            c.overturned,
            c.time.as_secs_f64(),
            c.files_run_alone,
            c.alone_time.as_secs_f64(),
            mode.flaky_tests
        );
        let kind = Confirmation::SelectedFail;
        if c.of(kind) > 0 {
            println!(
                "{:<10} selected failures confirmed because they decide a rejection: {}, {} overturned, {:.1}s",
                mode.selection,
                c.of(kind),
                c.overturned_of(kind),
                c.time_of(kind).as_secs_f64()
            );
        }
    }
    match report.selection_speedup {
        Some(ratio) => println!("coverage selection: {ratio:.2}x the validated tasks per CPU-minute of full runs"),
        None => println!("coverage selection speedup: n/a (the full run kept no task)"),
    }
    let tasks = report.modes.first().map_or(0, |m| m.tasks);
    if report.identical_verdicts {
        println!("identical verdicts: yes ({tasks} tasks: same ids, levels and pass/fail outcomes; same rejections)");
    } else {
        println!("identical verdicts: no");
        for difference in &report.differences {
            println!("  {difference}");
        }
    }
    if report.share_outside_tests.is_none() {
        println!("(the share of time outside test runs needs --jobs 1)");
    }
    let m = &report.merges;
    println!();
    println!(
        "merges of {} commit pairs ({} conflicted; git agrees on {} of {})",
        m.pairs, m.conflicted, m.agreeing, m.pairs
    );
    println!("  git2 in process          {:>10.1} merges/s ({} passes)", m.git2_per_second, m.git2_passes);
    println!("  git merge-tree spawned   {:>10.1} merges/s", m.git_cli_per_second);
    println!("  ratio                    {:>10.1}x", m.ratio);
    println!();
    println!(
        "peak memory: mergeforge {:.1} MiB, largest child {:.1} MiB",
        report.peak_memory.self_kib as f64 / 1024.0,
        report.peak_memory.children_kib as f64 / 1024.0
    );
}

fn print_mode(mode: &ModeRun) {
    let share = mode.share_outside_tests.map_or("n/a".to_string(), |s| format!("{:.1}%", s * 100.0));
    println!(
        "{:<10} {:>6} {:>6} {:>9} {:>7} {:>10} {:>9.1} {:>8.1} {:>8.1} {:>14.2} {:>14}",
        mode.selection,
        mode.tasks,
        mode.candidates_tried,
        mode.test_runs,
        mode.served_runs,
        mode.test_cases,
        mode.test_seconds,
        mode.wall_seconds,
        mode.cpu_seconds,
        mode.tasks_per_cpu_minute,
        share
    );
}

fn run_env(args: EnvBenchArgs) -> Result<ExitCode> {
    let options = EnvBenchOptions {
        dataset: args.dataset,
        resets: args.resets,
        sessions: args.sessions,
        tasks: args.tasks,
        work_dir: args.work_dir,
    };
    let report = bench::env::run(&options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_env_report(&report);
    }
    Ok(ExitCode::SUCCESS)
}

/// Targets of issue 18 on a 2-core machine.
const SEQUENTIAL_TARGET_MS: f64 = 30.0;
const CONCURRENT_TARGET_MS: f64 = 400.0;

fn print_env_report(report: &EnvBenchReport) {
    let copies = if report.reflinks { "reflinks" } else { "plain copies (no reflink on this file system)" };
    println!(
        "bench env on {} ({} tasks) with {}: {} sequential resets, {} sessions at once; episode copies: {copies}",
        report.dataset, report.tasks, report.client, report.resets, report.sessions
    );
    println!(
        "work directories under {}; load average {:.2} before, {:.2} after",
        report.work_dir, report.load_before, report.load_after
    );
    println!();
    let at_once = format!("{} at once", report.sessions);
    println!(
        "{:<10} {:>22} {:>22} {:>22} {:>8} {:>7} {:>11} {:>12}",
        "reset path",
        "first reset p50/p95",
        "sequential p50/p95",
        at_once,
        "solved",
        "errors",
        "cross-talk",
        "server peak"
    );
    let pair = |l: &Latency| format!("{:.1} / {:.1} ms", l.p50_ms, l.p95_ms);
    for run in &report.paths {
        println!(
            "{:<10} {:>22} {:>22} {:>22} {:>8} {:>7} {:>11} {:>8.1} MiB",
            run.reset_path.name(),
            pair(&run.first),
            pair(&run.sequential),
            pair(&run.concurrent),
            format!("{}/{}", run.solved, report.sessions),
            run.errors.len(),
            run.crosstalk,
            run.server_peak_rss_kib as f64 / 1024.0
        );
        for error in &run.errors {
            println!("  error: {error}");
        }
    }
    let r = &report.ratios;
    println!();
    println!(
        "clone / template: sequential p50 {:.1}x, p95 {:.1}x; {} at once p50 {:.1}x, p95 {:.1}x; server peak RSS {:.2}x",
        r.sequential_p50, r.sequential_p95, report.sessions, r.concurrent_p50, r.concurrent_p95, r.server_peak_rss
    );
    if let Some(template) = report.paths.first() {
        let verdict = |ok: bool| if ok { "met" } else { "missed" };
        println!(
            "targets (2 cores): sequential p50 < {SEQUENTIAL_TARGET_MS} ms {}; {} at once p50 < {CONCURRENT_TARGET_MS} ms {}",
            verdict(template.sequential.p50_ms < SEQUENTIAL_TARGET_MS),
            report.sessions,
            verdict(template.concurrent.p50_ms < CONCURRENT_TARGET_MS)
        );
    }
}
