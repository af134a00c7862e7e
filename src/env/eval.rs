//! Runs baseline agents over a dataset through the environment's own episode code, in
//! parallel, and measures the environment while doing it: reset latency and the
//! per-step overhead that is not spent running tests or agent commands.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::Serialize;

use super::action::Action;
use super::agents;
use super::config::Settings;
use super::dataset::TaskEntry;
use super::episode::Episode;
use super::observation::{Observation, TestCounts};
use super::Environment;
use crate::difficulty::Level;
use crate::forge::Family;

/// The outcome of one episode.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct EpisodeResult {
    pub(crate) task_id: String,
    pub(crate) level: Level,
    pub(crate) family: Family,
    pub(crate) steps: usize,
    pub(crate) reward: f64,
    pub(crate) max_reward: f64,
    pub(crate) reached_max: bool,
    pub(crate) markers_remaining: usize,
    pub(crate) syntax_valid: bool,
    pub(crate) tests_passing: bool,
    /// The task is solved: the graded tests pass with no marker left.
    pub(crate) solved: bool,
    pub(crate) tests: Option<TestCounts>,
    /// Set when the environment refused an action or failed; the episode was cut short.
    pub(crate) error: Option<String>,
    #[serde(skip)]
    pub(crate) reset_time: Duration,
    #[serde(skip)]
    pub(crate) step_overheads: Vec<Duration>,
}

/// Percentiles of the environment's own latency.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Latency {
    pub(crate) resets: usize,
    pub(crate) reset_p50_ms: f64,
    pub(crate) reset_p95_ms: f64,
    pub(crate) steps: usize,
    pub(crate) step_overhead_p50_ms: f64,
    pub(crate) step_overhead_p95_ms: f64,
}

/// Plays `agent` on every task in `tasks` with `jobs` episodes at a time (a rayon pool
/// of that size); results in task order.
pub(crate) fn run(env: &Environment, agent: &str, tasks: &[Arc<TaskEntry>], jobs: usize) -> Result<Vec<EpisodeResult>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.clamp(1, tasks.len().max(1)))
        .build()
        .context("starting the episode workers")?;
    Ok(pool.install(|| tasks.par_iter().map(|entry| play(env, agent, entry)).collect()))
}

/// One full episode of `agent` on `entry`.
pub(crate) fn play(env: &Environment, agent_name: &str, entry: &Arc<TaskEntry>) -> EpisodeResult {
    play_with(&env.settings, agent_name, entry)
}

/// One full episode of `agent` on `entry`, with the settings of an environment that need
/// not hold the task (the grader check at generation plays tasks not yet written).
pub(crate) fn play_with(settings: &Arc<Settings>, agent_name: &str, entry: &Arc<TaskEntry>) -> EpisodeResult {
    let mut result = EpisodeResult::new(entry);
    let mut agent = match agents::make(agent_name, entry) {
        Ok(agent) => agent,
        Err(e) => {
            result.error = Some(e);
            return result;
        }
    };
    let (mut episode, mut reply) = match Episode::start(entry.clone(), settings.clone(), None) {
        Ok(started) => started,
        Err(e) => {
            result.error = Some(e.message);
            return result;
        }
    };
    result.reset_time = episode.timing().total;
    result.max_reward = reply.observation.max_reward;
    // Every accepted step counts towards max_steps, so this loop ends; the bound is a
    // second guard against an environment that stops counting.
    for _ in 0..=settings.config.max_steps {
        if reply.done {
            break;
        }
        let action = agent.act(&reply.observation).unwrap_or(Action::Finish);
        match episode.step(action) {
            Ok(next) => {
                result.step_overheads.push(episode.timing().overhead());
                reply = next;
            }
            Err(e) => {
                result.error = Some(e.message);
                break;
            }
        }
    }
    result.record(&reply.observation);
    result
}

impl EpisodeResult {
    /// The result of an episode of `entry` not played yet: nothing earned.
    pub(crate) fn new(entry: &TaskEntry) -> EpisodeResult {
        let task = &entry.task;
        EpisodeResult {
            task_id: task.id.clone(),
            level: task.difficulty.level,
            family: task.family,
            steps: 0,
            reward: 0.0,
            max_reward: 0.0,
            reached_max: false,
            markers_remaining: 0,
            syntax_valid: false,
            tests_passing: false,
            solved: false,
            tests: None,
            error: None,
            reset_time: Duration::ZERO,
            step_overheads: Vec::new(),
        }
    }

    /// Takes the episode's last observation: the environment's judgement of the tree
    /// (solved, reward) and what it saw.
    pub(crate) fn record(&mut self, obs: &Observation) {
        self.steps = obs.step_count;
        self.reward = obs.total_reward;
        self.max_reward = obs.max_reward;
        self.reached_max = (obs.total_reward - obs.max_reward).abs() < 1e-9;
        self.markers_remaining = obs.conflict_count;
        self.syntax_valid = obs.syntax_valid;
        self.tests_passing = obs.tests_passing;
        self.solved = obs.tests_passing && obs.conflict_count == 0;
        self.tests = obs.tests;
    }
}

/// Reset and step-overhead percentiles over `results`.
pub(crate) fn latency(results: &[EpisodeResult]) -> Latency {
    let mut resets: Vec<Duration> = results.iter().filter(|r| r.error.is_none()).map(|r| r.reset_time).collect();
    let mut steps: Vec<Duration> = results.iter().flat_map(|r| r.step_overheads.iter().copied()).collect();
    Latency {
        resets: resets.len(),
        reset_p50_ms: percentile_ms(&mut resets, 50),
        reset_p95_ms: percentile_ms(&mut resets, 95),
        steps: steps.len(),
        step_overhead_p50_ms: percentile_ms(&mut steps, 50),
        step_overhead_p95_ms: percentile_ms(&mut steps, 95),
    }
}

/// The nearest-rank percentile, in milliseconds with 0.1 ms resolution.
fn percentile_ms(values: &mut [Duration], pct: usize) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort();
    let rank = (pct * values.len()).div_ceil(100).max(1) - 1;
    (values[rank.min(values.len() - 1)].as_secs_f64() * 10_000.0).round() / 10.0
}
