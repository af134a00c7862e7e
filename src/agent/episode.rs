//! One agent command on one task, start to verdict ([`play`]), and on many tasks at
//! once ([`play_all`]): the environment starts the episode (its repository mid-merge),
//! the agent runs in it ([`super::run`]), then the episode finishes as an agent's
//! `finish` would and the environment grades the tree with its own judgement. The
//! result is the environment's ([`EpisodeResult`]: solved, reward, markers, tests),
//! with what the agent did (exit code, timed out, wall time, its output), the final
//! tree and its diff against the tree the agent started from.

use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};
use rayon::prelude::*;

use super::brief::Brief;
use super::command::{AgentCommand, Policy};
use super::run::{self, AgentRun};
use crate::env::action::Action;
use crate::env::dataset::TaskEntry;
use crate::env::episode::Episode;
use crate::env::eval::EpisodeResult;
use crate::env::Settings;
use crate::snapshot::Snapshot;

/// One episode of an agent command.
#[derive(Debug, Clone)]
pub(crate) struct AgentEpisode {
    /// The environment's verdict on the final tree (`solved`, `reward`, ...); `error`
    /// is set when the environment itself failed (the agent is not to blame).
    pub(crate) result: EpisodeResult,
    /// What the agent did; `None` when the episode failed before it ran.
    pub(crate) run: Option<AgentRun>,
    /// The working tree the agent started from and the one it left (`.git` aside).
    pub(crate) start: Snapshot,
    pub(crate) tree: Snapshot,
}

impl AgentEpisode {
    /// An episode that failed before or while grading: nothing solved.
    fn failed(entry: &TaskEntry, error: &anyhow::Error) -> AgentEpisode {
        let mut result = EpisodeResult::new(entry);
        result.error = Some(format!("{error:#}"));
        AgentEpisode { result, run: None, start: Snapshot::new(), tree: Snapshot::new() }
    }

    /// A built-in agent's episode (`eval --agent`): no command ran.
    pub(crate) fn built_in(result: EpisodeResult) -> AgentEpisode {
        AgentEpisode { result, run: None, start: Snapshot::new(), tree: Snapshot::new() }
    }

    /// Wall seconds the agent ran.
    pub(crate) fn wall_seconds(&self) -> f64 {
        self.run.as_ref().map_or(0.0, |r| (r.wall.as_secs_f64() * 10.0).round() / 10.0)
    }
}

/// Runs `command` on `entry` under `policy` with the environment `settings` (whose
/// work folder holds the episode), and grades the tree it leaves.
pub(crate) fn play(
    entry: &Arc<TaskEntry>,
    settings: &Arc<Settings>,
    command: &AgentCommand,
    policy: &Policy,
) -> Result<AgentEpisode> {
    start(entry, settings, command, policy)?.grade()
}

/// An agent command that has run in its episode, the tree it left not yet graded.
pub(crate) struct Ran {
    episode: Episode,
    result: EpisodeResult,
    run: AgentRun,
    start: Snapshot,
}

/// Starts the episode of `entry` and runs `command` in it under `policy`, without
/// grading: [`Ran::grade`] grades as the environment does; the agent rung judges
/// [`Ran::tree`] itself.
pub(crate) fn start(
    entry: &Arc<TaskEntry>,
    settings: &Arc<Settings>,
    command: &AgentCommand,
    policy: &Policy,
) -> Result<Ran> {
    let id = &entry.task.id;
    let (episode, reply) =
        Episode::start(entry.clone(), settings.clone(), None).map_err(|e| anyhow!("task {id}: {}", e.message))?;
    let mut result = EpisodeResult::new(entry);
    result.reset_time = episode.timing().total;
    let start = episode.tree();
    let test_command = episode.test_command();
    let brief = Brief::new(episode.root(), episode.repo(), id, &reply.observation.last_output, &test_command.argv);
    let conflicted: Vec<String> = reply.observation.files.keys().cloned().collect();
    brief.write(&conflicted)?;
    let mut env = episode.command_env();
    env.extend(brief.env());
    let reads = episode.python().prefixes();
    let run = run::run(command, policy, episode.repo(), episode.root(), &env, &reads)
        .with_context(|| format!("task {id}"))?;
    Ok(Ran { episode, result, run, start })
}

impl Ran {
    /// The tree the agent left (`.git` aside).
    pub(crate) fn tree(&self) -> Snapshot {
        self.episode.tree()
    }

    /// What the agent did.
    pub(crate) fn run(&self) -> &AgentRun {
        &self.run
    }

    /// Finishes the episode as an agent's `finish` would: the environment grades the
    /// tree with its judgement.
    pub(crate) fn grade(self) -> Result<AgentEpisode> {
        let Ran { mut episode, mut result, run, start } = self;
        let id = result.task_id.clone();
        let last = episode.step(Action::Finish).map_err(|e| anyhow!("task {id}: grading: {}", e.message))?;
        result.step_overheads.push(episode.timing().overhead());
        result.record(&last.observation);
        Ok(AgentEpisode { result, run: Some(run), start, tree: episode.tree() })
    }
}

/// [`play`] on every task in `tasks`, `jobs` episodes at a time; results in task order.
/// An episode that fails is recorded with its error, unsolved.
pub(crate) fn play_all(
    tasks: &[Arc<TaskEntry>],
    settings: &Arc<Settings>,
    command: &AgentCommand,
    policy: &Policy,
    jobs: usize,
) -> Result<Vec<AgentEpisode>> {
    run::check_confinement(policy)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.clamp(1, tasks.len().max(1)))
        .build()
        .context("starting the episode workers")?;
    Ok(pool.install(|| {
        tasks
            .par_iter()
            .map(|entry| {
                play(entry, settings, command, policy).unwrap_or_else(|error| AgentEpisode::failed(entry, &error))
            })
            .collect()
    }))
}

/// How long an agent may run by default (`--agent-timeout`).
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1800);
