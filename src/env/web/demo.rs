//! One demo episode for the page: a baseline agent ([`crate::env::agents`]) plays a
//! task through the environment's own [`Environment::reset`] and [`Episode::step`],
//! exactly as `mergeforge eval` and the OpenEnv routes do, and every step is recorded:
//! the action, the tool output, the reward by component and the tree's state. The
//! answer also carries the files as the agent left them, their diff against the
//! conflicted merge, and the reward table.
//!
//! Runs on the caller's thread (the server puts it on the blocking pool); the episode
//! directory goes when the run returns.

use std::collections::BTreeMap;
use std::path::{Component, Path};

use serde::{Deserialize, Serialize};

use super::diff;
use crate::bundle::Solution;
use crate::env::action::Action;
use crate::env::agents;
use crate::env::dataset::TaskChoice;
use crate::env::episode::Episode;
use crate::env::observation::{Observation, StepReply, TestCounts};
use crate::env::reward::{round, RewardComponents};
use crate::env::{EnvError, Environment, ResetRequest};

/// `POST /api/demo/run`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct DemoRequest {
    pub(crate) task: String,
    pub(crate) agent: String,
}

/// One step of the episode, as the page lists it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StepRecord {
    pub(crate) step: usize,
    /// The action in a few words (resolutions are not repeated: see `files`).
    pub(crate) action: String,
    pub(crate) reward: f64,
    pub(crate) components: RewardComponents,
    pub(crate) total_reward: f64,
    pub(crate) conflict_count: usize,
    pub(crate) syntax_valid: bool,
    pub(crate) tests_passing: bool,
    pub(crate) tests: Option<TestCounts>,
    pub(crate) done: bool,
    pub(crate) output: String,
}

/// A file the episode is about: conflicted at reset, or edited by the gold merge.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ResolvedFile {
    pub(crate) path: String,
    pub(crate) has_conflict: bool,
    pub(crate) conflicted: String,
    pub(crate) resolved: String,
    /// Unified diff conflicted → resolved.
    pub(crate) diff: String,
}

/// One row of the reward table: a component summed over the episode.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct RewardRow {
    pub(crate) component: String,
    pub(crate) paid_for: String,
    pub(crate) earned: f64,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct RewardTable {
    pub(crate) rows: Vec<RewardRow>,
    pub(crate) total: f64,
    pub(crate) max_reward: f64,
    pub(crate) reached_max: bool,
}

/// The answer of `POST /api/demo/run`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DemoRun {
    pub(crate) task_id: String,
    pub(crate) agent: String,
    pub(crate) reset_note: String,
    pub(crate) steps: Vec<StepRecord>,
    /// Set when the environment refused an action; the episode stopped there.
    pub(crate) error: Option<String>,
    pub(crate) done: bool,
    pub(crate) tests_passing: bool,
    pub(crate) files: Vec<ResolvedFile>,
    pub(crate) reward: RewardTable,
}

/// Plays `request.agent` on `request.task` to the end of the episode.
pub(crate) fn run(env: &Environment, request: &DemoRequest) -> Result<DemoRun, EnvError> {
    let choice = TaskChoice { task_id: Some(request.task.clone()), ..TaskChoice::default() };
    let entry = env.tasks.choose(&choice).map_err(EnvError::validation)?;
    let mut agent = agents::make(&request.agent, &entry).map_err(EnvError::validation)?;
    let (mut episode, mut reply) = env.reset(&ResetRequest { choice, episode_id: None })?;
    let at_reset = reply.observation.clone();
    let mut steps = Vec::new();
    let mut error = None;
    // Every accepted step counts towards max_steps, so the episode ends; the bound
    // guards against an environment that stops counting.
    for _ in 0..=env.settings.config.max_steps {
        if reply.done {
            break;
        }
        let action = agent.act(&reply.observation).unwrap_or(Action::Finish);
        let label = describe(&action);
        match episode.step(action) {
            Ok(next) => {
                reply = next;
                steps.push(record(steps.len() + 1, label, &reply));
            }
            Err(refused) => {
                error = Some(format!("step {}: {label}: refused: {}", steps.len() + 1, refused.message));
                break;
            }
        }
    }
    let files = files(&episode, &entry.solution, &at_reset, &reply.observation)?;
    let obs = &reply.observation;
    Ok(DemoRun {
        task_id: entry.task.id.clone(),
        agent: request.agent.clone(),
        reset_note: at_reset.last_output.clone(),
        reward: table(&steps, obs),
        steps,
        error,
        done: obs.done,
        tests_passing: obs.tests_passing,
        files,
    })
}

fn describe(action: &Action) -> String {
    match action {
        Action::Resolve { file, resolution } => format!("resolve {file} ({} bytes)", resolution.len()),
        Action::ReadFile { path, .. } => format!("read_file {path}"),
        Action::EditFile { path, .. } => format!("edit_file {path}"),
        Action::RunTests => "run_tests".to_string(),
        Action::Run { argv } => format!("run {}", argv.join(" ")),
        Action::Finish => "finish".to_string(),
    }
}

fn record(step: usize, action: String, reply: &StepReply) -> StepRecord {
    let obs = &reply.observation;
    StepRecord {
        step,
        action,
        reward: reply.reward.unwrap_or(0.0),
        components: obs.reward_components,
        total_reward: obs.total_reward,
        conflict_count: obs.conflict_count,
        syntax_valid: obs.syntax_valid,
        tests_passing: obs.tests_passing,
        tests: obs.tests,
        done: reply.done,
        output: obs.last_output.clone(),
    }
}

/// The conflicted files as the observations show them (with markers, or a semantic
/// task's files merged without them), then the files the gold merge edits outside the
/// conflicts as they are in the episode's working tree.
fn files(
    episode: &Episode,
    solution: &Solution,
    at_reset: &Observation,
    last: &Observation,
) -> Result<Vec<ResolvedFile>, EnvError> {
    let mut out = Vec::new();
    for (path, conflicted) in &at_reset.files {
        let resolved = last.files.get(path).cloned().unwrap_or_default();
        out.push(resolved_file(path, episode.task().task.has_markers(path), conflicted, resolved)?);
    }
    let merged: BTreeMap<&str, &str> =
        solution.files.iter().map(|f| (f.path.as_str(), f.conflicted.as_str())).collect();
    for path in solution.edits_outside_conflicts.iter().filter(|p| !at_reset.files.contains_key(*p)) {
        let (Some(conflicted), Some(resolved)) = (merged.get(path.as_str()), read_in_repo(episode.repo(), path)) else {
            continue;
        };
        out.push(resolved_file(path, false, conflicted, resolved)?);
    }
    Ok(out)
}

fn resolved_file(path: &str, has_conflict: bool, conflicted: &str, resolved: String) -> Result<ResolvedFile, EnvError> {
    let diff = diff::unified(path, conflicted, &resolved).map_err(EnvError::execution)?;
    Ok(ResolvedFile { path: path.to_string(), has_conflict, conflicted: conflicted.to_string(), resolved, diff })
}

/// A file of the episode's tree, if `path` stays inside it and is UTF-8 text.
fn read_in_repo(repo: &Path, path: &str) -> Option<String> {
    let relative = Path::new(path);
    if !relative.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    std::fs::read_to_string(repo.join(relative)).ok()
}

fn table(steps: &[StepRecord], last: &Observation) -> RewardTable {
    let sum = |pick: fn(&RewardComponents) -> f64| round(steps.iter().map(|s| pick(&s.components)).sum());
    let rows = vec![
        RewardRow {
            component: "markers".into(),
            paid_for: "removing the conflict blocks (shared among them)".into(),
            earned: sum(|c| c.markers),
        },
        RewardRow {
            component: "syntax".into(),
            paid_for: "every Python file parses (once); a broken file costs".into(),
            earned: sum(|c| c.syntax),
        },
        RewardRow {
            component: "tests".into(),
            paid_for: "solving: gold's tests, restored over the tree, pass with no marker left (once)".into(),
            earned: sum(|c| c.tests),
        },
    ];
    RewardTable {
        rows,
        total: last.total_reward,
        max_reward: last.max_reward,
        reached_max: (last.total_reward - last.max_reward).abs() < 1e-9,
    }
}
