//! The agent rung (`gen-tasks --agent-rung CMD`): an external agent played on each
//! candidate that every resolver left hard, above the ladder's mechanical rungs. The
//! agent runs as `eval --agent-cmd` runs it ([`crate::agent::episode::play`]: sandboxed,
//! in the episode's workspace made from the task's `repo.bundle`); the tree it leaves is
//! judged as the resolvers' trees are ([`judge::judge`] on the substrate's cached
//! runner). A candidate it solves in any of its tries is medium, recorded as the `agent`
//! cell of `validation.baselines`.
//!
//! Every try's tree is cached ([`super::agent_cache`]), so a run from a warm cache plays
//! no agent and writes the same bytes; the counts of tries played and read from the
//! cache go to the run report ([`AgentRungStats`]).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use serde::Serialize;

use super::agent_cache::{AgentCache, CachedTry, TryKey};
use super::grader_check::{scratch_entry, Checker};
use super::options::AgentRungOptions;
use crate::agent::{self, AgentCommand, Policy};
use crate::bundle::manifest::AgentRungEntry;
use crate::bundle::record::TaskFiles;
use crate::judge::{self, runner::recorded, runner::RunnerRuns};
use crate::snapshot::Snapshot;
use crate::validate::{AgentOutcome, TestRunner};

/// A run's agent rung: the command, its tries and the cache of their trees.
pub(crate) struct AgentRung {
    options: AgentRungOptions,
    command: AgentCommand,
    policy: Policy,
    cache: AgentCache,
    candidates: AtomicUsize,
    played: AtomicUsize,
    cached: AtomicUsize,
    solved: AtomicUsize,
}

/// What a run's agent rung did, for the run report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct AgentRungStats {
    /// Candidates the agent played (every resolver left them hard).
    pub(crate) candidates: usize,
    /// Of those, the ones it solved.
    pub(crate) solved: usize,
    /// Tries the agent ran.
    pub(crate) tries_played: usize,
    /// Tries read from the cache instead.
    pub(crate) tries_cached: usize,
}

impl AgentRung {
    /// The rung `options` describe, caching under `cache_dir` (the run's `--cache`); an
    /// error when the command does not parse or the host cannot confine it.
    pub(crate) fn new(options: &AgentRungOptions, cache_dir: &Path) -> Result<AgentRung> {
        let command = AgentCommand::parse(&options.command).context("--agent-rung")?;
        let policy = options.policy.clone();
        agent::run::check_confinement(&policy).context("--agent-rung")?;
        let cache = AgentCache::new(cache_dir);
        let swept = cache.sweep_leftovers();
        if swept > 0 {
            log::info!("removed {swept} temporary agent-rung cache files left by killed runs");
        }
        Ok(AgentRung {
            options: options.clone(),
            command,
            policy,
            cache,
            candidates: AtomicUsize::new(0),
            played: AtomicUsize::new(0),
            cached: AtomicUsize::new(0),
            solved: AtomicUsize::new(0),
        })
    }

    /// Plays the agent on `files`, a task every resolver left hard whose merge left
    /// `conflicted` and whose gold is `gold`: its tries in order, until one solves it.
    /// Its episodes run with `checker`'s settings; its trees are judged on `runner`.
    pub(crate) fn play(
        &self,
        files: &TaskFiles,
        conflicted: &Snapshot,
        gold: &Snapshot,
        runner: &TestRunner,
        checker: &Checker,
    ) -> Result<AgentOutcome> {
        self.candidates.fetch_add(1, Ordering::Relaxed);
        let options = &self.options;
        for index in 0..options.tries {
            let key = TryKey::new(
                &files.task.sha256.repo_bundle,
                &options.command,
                options.label.as_deref(),
                &self.policy,
                index,
            );
            let entry = match self.cache.get(&key) {
                Some(entry) => {
                    self.cached.fetch_add(1, Ordering::Relaxed);
                    entry
                }
                None => {
                    self.played.fetch_add(1, Ordering::Relaxed);
                    let tree = self.run_try(files, checker, index)?;
                    self.cache.put(&key, &CachedTry::of(conflicted, &tree))?
                }
            };
            let tree = entry.tree(conflicted)?;
            let judged = judge::judge(&tree, gold, &RunnerRuns::new(runner, gold))
                .with_context(|| format!("judging the agent's tree (try {} of {})", index + 1, options.tries))?;
            let outcome = recorded(judged);
            if outcome.passed {
                self.solved.fetch_add(1, Ordering::Relaxed);
                return Ok(AgentOutcome { passed: true, tries: index + 1 });
            }
        }
        Ok(AgentOutcome { passed: false, tries: options.tries })
    }

    /// What the manifest's ladder records of the rung.
    pub(crate) fn entry(&self) -> AgentRungEntry {
        self.options.entry()
    }

    /// What the rung did so far.
    pub(crate) fn stats(&self) -> AgentRungStats {
        AgentRungStats {
            candidates: self.candidates.load(Ordering::Relaxed),
            solved: self.solved.load(Ordering::Relaxed),
            tries_played: self.played.load(Ordering::Relaxed),
            tries_cached: self.cached.load(Ordering::Relaxed),
        }
    }

    /// Runs the agent once in the task's workspace and returns the tree it left, without
    /// what running Python leaves (`__pycache__`, `.pytest_cache`). The tree is not
    /// graded here: [`AgentRung::play`] judges it once, cached or not.
    fn run_try(&self, files: &TaskFiles, checker: &Checker, index: u32) -> Result<Snapshot> {
        let id = &files.task.id;
        let (_scratch, entry) = scratch_entry(files)?;
        let ran = agent::episode::start(&entry, checker.settings(), &self.command, &self.policy)
            .with_context(|| format!("the agent rung on {id}, try {}", index + 1))?;
        let run = ran.run();
        log::info!(
            "agent rung on {id}, try {}: exit {:?}{}, {:.1}s",
            index + 1,
            run.exit_code,
            if run.timed_out { " (timed out)" } else { "" },
            run.wall.as_secs_f64(),
        );
        Ok(ran.tree().into_iter().filter(|(path, _)| !is_cache_path(path)).collect())
    }
}

/// Whether `path` is what running Python leaves in a tree, not part of a resolution.
fn is_cache_path(path: &str) -> bool {
    path.split('/').any(|part| part == "__pycache__" || part == ".pytest_cache")
}
