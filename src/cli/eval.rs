//! `mergeforge eval`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;
use serde_json::json;

use super::serve::EpisodeArgs;
use crate::difficulty::Level;
use crate::env::agents;
use crate::env::eval::{self, EpisodeResult, Latency};
use crate::env::{EnvConfig, Environment};

/// Score a baseline agent on a dataset by playing full episodes through the
/// environment (the same code `serve` runs: materialise, act, test, reward).
///
/// Agents (--agent): noop (finishes at once), one agent per baseline resolver that plays
/// one (resolves every hunk that way, one file per step), gold (submits the gold merge;
/// must reach the maximum reward on every task). Prints per task: steps, reward / max, markers remaining, syntax,
/// tests passed/total; then totals by level (reward share next to solve share), and the environment's latency: reset p50/p95 and the per-step
/// overhead excluding the time spent running tests and commands.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct EvalArgs {
    /// Dataset version directory (holds manifest.json).
    #[arg(long, value_name = "DIR", default_value = "generated/mergeforge-embedded/1.0.0")]
    pub(crate) dataset: PathBuf,

    /// The agent to play (its possible values come from the resolver catalogue).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: String,

    /// Only tasks of this level (easy, medium, hard).
    #[arg(long, value_name = "LEVEL")]
    pub(crate) level: Option<String>,

    /// Only this task.
    #[arg(long = "task", value_name = "ID")]
    pub(crate) task: Option<String>,

    /// Episodes run at once. Default: the number of CPUs.
    #[arg(long, value_name = "N")]
    pub(crate) jobs: Option<usize>,

    /// Print one JSON document instead of the table.
    #[arg(long)]
    pub(crate) json: bool,

    #[command(flatten)]
    pub(crate) episode: EpisodeArgs,
}

/// `--agent`'s possible values: every agent `eval` plays, each with what it does.
pub(super) fn agent_values() -> super::values::NamedValue {
    super::values::NamedValue::new("agent", || {
        agents::names().into_iter().map(|n| (n, agents::description(n))).collect()
    })
}

pub(crate) fn run(args: EvalArgs) -> Result<ExitCode> {
    let level = match args.level.as_deref() {
        None => None,
        Some(name) => Some(
            Level::ALL
                .into_iter()
                .find(|l| l.name() == name)
                .ok_or_else(|| anyhow::anyhow!("unknown level `{name}`: expected easy, medium or hard"))?,
        ),
    };
    let run_dir = args.episode.run_dir("mergeforge-eval-")?;
    // eval prints each task's level and family anyway: its episodes may know them.
    let config = EnvConfig { reveal_task_info: true, ..args.episode.config(run_dir.path().to_path_buf())? };
    let env = Environment::new(&args.dataset, config)?;
    let tasks = env.tasks.select(level, args.task.as_deref());
    if tasks.is_empty() {
        bail!("no task matches --level/--task in {}", args.dataset.display());
    }
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let results = eval::run(&env, &args.agent, &tasks, jobs)?;
    let latency = eval::latency(&results);
    if args.json {
        print_json(&args.agent, &results, &latency)?;
    } else {
        print_table(&args.agent, &results, &latency);
    }
    let failed: Vec<&EpisodeResult> = results.iter().filter(|r| r.error.is_some()).collect();
    if let Some(first) = failed.first() {
        eprintln!(
            "error: {} episode(s) failed; first: {}: {}",
            failed.len(),
            first.task_id,
            first.error.as_deref().unwrap_or("")
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// Per-level sums: tasks, reward, max, episodes at the maximum, episodes with tests
/// passing, episodes that solved their task.
#[derive(Default)]
struct LevelTotals {
    tasks: usize,
    reward: f64,
    max: f64,
    at_max: usize,
    passing: usize,
    solved: usize,
}

fn totals(results: &[EpisodeResult]) -> BTreeMap<String, LevelTotals> {
    let mut by_level: BTreeMap<String, LevelTotals> = BTreeMap::new();
    for r in results {
        for key in [r.level.name().to_string(), "all".to_string()] {
            let t = by_level.entry(key).or_default();
            t.tasks += 1;
            t.reward += r.reward;
            t.max += r.max_reward;
            t.at_max += r.reached_max as usize;
            t.passing += r.tests_passing as usize;
            t.solved += r.solved as usize;
        }
    }
    by_level
}

fn print_table(agent: &str, results: &[EpisodeResult], latency: &Latency) {
    println!("agent {agent}: {} episodes", results.len());
    println!(
        "{:<34} {:<6} {:<18} {:>5} {:>13} {:>7} {:<7} {:>7}",
        "task", "level", "family", "steps", "reward/max", "markers", "syntax", "tests"
    );
    for r in results {
        let tests = r.tests.map_or("-".to_string(), |c| format!("{}/{}", c.passed, c.total));
        let syntax = if r.syntax_valid { "valid" } else { "invalid" };
        let mark = if r.error.is_some() {
            " ERROR"
        } else if r.reached_max {
            " *"
        } else {
            ""
        };
        println!(
            "{:<34} {:<6} {:<18} {:>5} {:>6.2}/{:<6.2} {:>7} {:<7} {:>7}{mark}",
            r.task_id, r.level, r.family, r.steps, r.reward, r.max_reward, r.markers_remaining, syntax, tests
        );
    }
    println!("(* = maximum reward reached)");
    println!("totals:");
    for (level, t) in totals(results) {
        println!(
            "  {level:<6} {:>3} tasks  reward {:>7.2} / {:>7.2} ({:>5.1}%)  solved {:>3} ({:>5.1}%)  at max {:>3}",
            t.tasks,
            t.reward,
            t.max,
            100.0 * t.reward / t.max.max(f64::EPSILON),
            t.solved,
            100.0 * t.solved as f64 / t.tasks.max(1) as f64,
            t.at_max,
        );
    }
    println!(
        "latency: reset p50 {:.1} ms, p95 {:.1} ms ({} resets); step overhead excluding tests and commands p50 {:.1} ms, p95 {:.1} ms ({} steps)",
        latency.reset_p50_ms, latency.reset_p95_ms, latency.resets, latency.step_overhead_p50_ms, latency.step_overhead_p95_ms, latency.steps
    );
}

fn print_json(agent: &str, results: &[EpisodeResult], latency: &Latency) -> Result<()> {
    let totals: BTreeMap<String, serde_json::Value> = totals(results)
        .into_iter()
        .map(|(level, t)| {
            (level, json!({"tasks": t.tasks, "reward": crate::env::reward::round(t.reward), "max_reward": crate::env::reward::round(t.max), "at_max": t.at_max, "tests_passing": t.passing, "solved": t.solved}))
        })
        .collect();
    let document = json!({"agent": agent, "episodes": results, "totals": totals, "latency": latency});
    println!("{}", serde_json::to_string_pretty(&document)?);
    Ok(())
}
