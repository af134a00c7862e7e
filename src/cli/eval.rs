//! `mergeforge eval`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use clap::Args;
use serde_json::json;

use super::agent_policy::AgentPolicyArgs;
use super::serve::EpisodeArgs;
use crate::agent::{self, transcript, AgentCommand, AgentEpisode};
use crate::difficulty::Level;
use crate::env::agents;
use crate::env::eval::{self, EpisodeResult, Latency};
use crate::env::{EnvConfig, Environment};

/// Score an agent on a dataset by playing full episodes through the environment (the
/// same code `serve` runs: materialise, act, test, reward).
///
/// Built-in agents (--agent): noop (finishes at once), one agent per baseline resolver
/// that plays one (resolves every hunk that way, one file per step), gold (submits the
/// gold merge; must reach the maximum reward on every task).
///
/// Any command-line agent (--agent-cmd 'CMD'): runs once per episode in the episode's
/// repository (the merge stopped mid-way) inside the sandbox under its own policy
/// (--agent-timeout, --agent-network, --agent-env, --agent-ro, --agent-home), learns
/// the task from $MERGEFORGE_TASK_FILE (outside the repository), $MERGEFORGE_PROMPT,
/// $MERGEFORGE_TEST_CMD and $MERGEFORGE_REPO, and when it exits the environment grades
/// the tree it left. See docs/agents.md.
///
/// Prints per task: steps, reward / max, markers remaining, syntax, tests passed/total
/// (with --agent-cmd: the agent's exit code and wall seconds); then totals by level
/// and by family (reward share next to solve share), and the environment's latency:
/// reset p50/p95 and the per-step overhead excluding the time spent running tests and
/// commands.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct EvalArgs {
    /// Dataset version directory (holds manifest.json).
    #[arg(long, value_name = "DIR", default_value = "generated/mergeforge-embedded/1.0.0")]
    pub(crate) dataset: PathBuf,

    /// The built-in agent to play (its possible values come from the resolver catalogue).
    #[arg(long, value_name = "NAME", required_unless_present = "agent_cmd", conflicts_with = "agent_cmd")]
    pub(crate) agent: Option<String>,

    /// A command-line agent to run in each episode's repository (shell words; use
    /// `sh -c '…'` for pipes). Its arguments are never recorded.
    #[arg(long, value_name = "CMD")]
    pub(crate) agent_cmd: Option<String>,

    #[command(flatten)]
    pub(crate) policy: AgentPolicyArgs,

    /// The agent's name in the output and the results file (e.g. the model). Default:
    /// the built-in agent's name, or the command's program name.
    #[arg(long, value_name = "NAME")]
    pub(crate) agent_label: Option<String>,

    /// The run's name in the results file (`curriculum` counts each (task, agent, run)
    /// once). Default: a fresh random id.
    #[arg(long, value_name = "NAME")]
    pub(crate) run: Option<String>,

    /// Write each task's transcript to DIR/TASK_ID/: stdout.txt, stderr.txt,
    /// diff.patch (the final tree against the conflicted one), episode.json.
    #[arg(long, value_name = "DIR", requires = "agent_cmd")]
    pub(crate) transcripts: Option<PathBuf>,

    /// Append one JSON line per episode to FILE, the format `mergeforge curriculum
    /// --results` reads: task_id, success, reward, agent, run, level, family,
    /// exit_code, timed_out, wall_s.
    #[arg(long, value_name = "FILE")]
    pub(crate) results: Option<PathBuf>,

    /// Only tasks of this level (easy, medium, hard).
    #[arg(long, value_name = "LEVEL")]
    pub(crate) level: Option<String>,

    /// Only this task; repeatable.
    #[arg(long = "task", value_name = "ID")]
    pub(crate) task: Vec<String>,

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
    let command = args.agent_cmd.as_deref().map(AgentCommand::parse).transpose()?;
    let policy = args.policy.policy(command.is_some(), "--agent-cmd", args.episode.allow_unconfined_run)?;
    let run_dir = args.episode.run_dir("mergeforge-eval-")?;
    // eval prints each task's level and family anyway: its episodes may know them.
    let config = EnvConfig { reveal_task_info: true, ..args.episode.config(run_dir.path().to_path_buf())? };
    let env = Environment::new(&args.dataset, config)?;
    if let Some(unknown) = args.task.iter().find(|id| !env.tasks.tasks.iter().any(|t| &t.task.id == *id)) {
        bail!("no task matches --task {unknown} in {}", args.dataset.display());
    }
    let tasks = env.tasks.select(level, &args.task);
    if tasks.is_empty() {
        bail!("no task matches --level/--task in {}", args.dataset.display());
    }
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let run_name = args.run.clone().unwrap_or_else(crate::env::episode::new_episode_id);
    let episodes: Vec<AgentEpisode> = match (&command, &args.agent) {
        (Some(command), _) => agent::play_all(&tasks, &env.settings, command, &policy, jobs)?,
        (None, Some(name)) => eval::run(&env, name, &tasks, jobs)?.into_iter().map(AgentEpisode::built_in).collect(),
        (None, None) => bail!("give --agent NAME or --agent-cmd 'CMD'"),
    };
    let label = match (&args.agent_label, &command, &args.agent) {
        (Some(label), _, _) => label.clone(),
        (None, Some(command), _) => command.program_name(),
        (None, None, agent) => agent.clone().unwrap_or_default(),
    };
    if let Some(dir) = &args.transcripts {
        for episode in &episodes {
            transcript::write(dir, episode)?;
        }
    }
    if let Some(path) = &args.results {
        let lines: Vec<serde_json::Value> = episodes
            .iter()
            .filter(|e| e.result.error.is_none())
            .map(|e| transcript::results_line(e, &label, &run_name))
            .collect();
        transcript::append_results(path, &lines)?;
    }
    let results: Vec<EpisodeResult> = episodes.iter().map(|e| e.result.clone()).collect();
    let latency = eval::latency(&results);
    if args.json {
        print_json(&label, command.as_ref(), &run_name, &episodes, &latency)?;
    } else {
        print_table(&label, &episodes, command.is_some(), &latency);
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
/// passing, episodes that solved their task, episodes whose agent timed out.
#[derive(Default)]
struct Totals {
    tasks: usize,
    reward: f64,
    max: f64,
    at_max: usize,
    passing: usize,
    solved: usize,
    timed_out: usize,
}

impl Totals {
    fn add(&mut self, episode: &AgentEpisode) {
        let r = &episode.result;
        self.tasks += 1;
        self.reward += r.reward;
        self.max += r.max_reward;
        self.at_max += r.reached_max as usize;
        self.passing += r.tests_passing as usize;
        self.solved += r.solved as usize;
        self.timed_out += episode.run.as_ref().is_some_and(|r| r.timed_out) as usize;
    }

    fn solve_rate(&self) -> f64 {
        self.solved as f64 / self.tasks.max(1) as f64
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "tasks": self.tasks,
            "reward": crate::env::reward::round(self.reward),
            "max_reward": crate::env::reward::round(self.max),
            "at_max": self.at_max,
            "tests_passing": self.passing,
            "solved": self.solved,
            "solve_rate": crate::env::reward::round(self.solve_rate()),
            "timed_out": self.timed_out,
        })
    }
}

/// Totals by level (and `all`), and by family.
fn totals(episodes: &[AgentEpisode]) -> (BTreeMap<String, Totals>, BTreeMap<String, Totals>) {
    let (mut by_level, mut by_family): (BTreeMap<String, Totals>, BTreeMap<String, Totals>) = Default::default();
    for episode in episodes {
        let r = &episode.result;
        by_level.entry(r.level.name().to_string()).or_default().add(episode);
        by_level.entry("all".to_string()).or_default().add(episode);
        by_family.entry(r.family.name().to_string()).or_default().add(episode);
    }
    (by_level, by_family)
}

fn print_table(agent: &str, episodes: &[AgentEpisode], command: bool, latency: &Latency) {
    println!("agent {agent}: {} episodes", episodes.len());
    let steps = if command { "exit" } else { "steps" };
    println!(
        "{:<34} {:<6} {:<18} {:>5} {:>13} {:>7} {:<7} {:>7}",
        "task", "level", "family", steps, "reward/max", "markers", "syntax", "tests"
    );
    for episode in episodes {
        let r = &episode.result;
        let tests = r.tests.map_or("-".to_string(), |c| format!("{}/{}", c.passed, c.total));
        let syntax = if r.syntax_valid { "valid" } else { "invalid" };
        let first = match (&episode.run, command) {
            (Some(run), _) if run.timed_out => "time".to_string(),
            (Some(run), _) => run.exit_code.map_or("kill".to_string(), |c| c.to_string()),
            (None, true) => "-".to_string(),
            (None, false) => r.steps.to_string(),
        };
        let mark = if r.error.is_some() {
            " ERROR"
        } else if r.solved && command {
            " solved"
        } else if r.reached_max {
            " *"
        } else {
            ""
        };
        println!(
            "{:<34} {:<6} {:<18} {:>5} {:>6.2}/{:<6.2} {:>7} {:<7} {:>7}{mark}",
            r.task_id, r.level, r.family, first, r.reward, r.max_reward, r.markers_remaining, syntax, tests
        );
    }
    if !command {
        println!("(* = maximum reward reached)");
    }
    let (by_level, by_family) = totals(episodes);
    for (title, totals) in [("totals:", by_level), ("by family:", by_family)] {
        println!("{title}");
        for (key, t) in totals {
            println!(
                "  {key:<18} {:>3} tasks  reward {:>7.2} / {:>7.2} ({:>5.1}%)  solved {:>3} ({:>5.1}%)  at max {:>3}",
                t.tasks,
                t.reward,
                t.max,
                100.0 * t.reward / t.max.max(f64::EPSILON),
                t.solved,
                100.0 * t.solve_rate(),
                t.at_max,
            );
        }
    }
    println!(
        "latency: reset p50 {:.1} ms, p95 {:.1} ms ({} resets); step overhead excluding tests and commands p50 {:.1} ms, p95 {:.1} ms ({} steps)",
        latency.reset_p50_ms, latency.reset_p95_ms, latency.resets, latency.step_overhead_p50_ms, latency.step_overhead_p95_ms, latency.steps
    );
}

fn print_json(
    agent: &str,
    command: Option<&AgentCommand>,
    run: &str,
    episodes: &[AgentEpisode],
    latency: &Latency,
) -> Result<()> {
    let (by_level, by_family) = totals(episodes);
    let collect = |totals: BTreeMap<String, Totals>| -> BTreeMap<String, serde_json::Value> {
        totals.into_iter().map(|(key, t)| (key, t.json())).collect()
    };
    let episodes: Vec<serde_json::Value> = match command {
        Some(_) => episodes.iter().map(transcript::episode_json).collect(),
        None => episodes.iter().map(|e| serde_json::to_value(&e.result)).collect::<Result<_, _>>()?,
    };
    let document = json!({
        "agent": agent,
        "command": command.map(AgentCommand::program_name),
        "run": run,
        "episodes": episodes,
        "totals": collect(by_level),
        "totals_by_family": collect(by_family),
        "latency": latency,
    });
    println!("{}", serde_json::to_string_pretty(&document)?);
    Ok(())
}
