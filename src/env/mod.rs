//! The environment: serves dataset tasks to agents as episodes, grades them with gold's
//! tests (the agent cannot touch them), pays the reward, and scores baseline agents
//! through the same code.
//!
//! * [`dataset`] loads a dataset version and picks the task of a reset.
//! * [`workspace`] materialises a task as a real git repository mid-merge and guards
//!   every path an agent names; [`template`] makes that repository once per task and
//!   gives each episode its own copy; [`initial`] is what a reset observes of it.
//! * [`action`], [`observation`] are the agent-facing types; [`episode`] applies
//!   actions, has [`grader`] judge the tree (gold's tests restored over a copy of it,
//!   in the sandbox) and pays [`reward`].
//! * [`protocol`] and [`server`] speak OpenEnv over HTTP and WebSocket (`mergeforge
//!   serve`), [`mcp`] speaks MCP at `/mcp`; [`tools`] is the one catalogue of tools both
//!   derive from [`action`]'s types. [`agents`] and [`eval`] run baseline agents
//!   (`mergeforge eval`).
//! * [`web`] is the task browser and live demo page that `serve` also offers.
//!
//! This stage reads bundles and task records; it never writes a dataset.

pub mod action;
pub mod agents;
pub(crate) mod check;
pub(crate) mod config;
pub mod dataset;
pub mod episode;
pub(crate) mod eval;
pub(crate) mod grader;
pub(crate) mod initial;
pub(crate) mod mcp;
pub mod observation;
pub(crate) mod protocol;
pub mod pythons;
pub mod reward;
pub(crate) mod server;
pub(crate) mod sessions;
pub mod template;
pub(crate) mod tools;
pub(crate) mod web;
pub(crate) mod workspace;

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};

use crate::pytest::venv::ensure_venv;
pub use config::{EnvConfig, Settings};
use dataset::TaskSet;
use episode::Episode;
use observation::StepReply;
pub use protocol::{EnvError, ErrorCode, ResetRequest};

/// A dataset served as episodes.
pub struct Environment {
    pub tasks: TaskSet,
    pub settings: Arc<Settings>,
}

impl Environment {
    /// Loads the dataset and makes sure the Python interpreters for the tests exist: the
    /// default one, and each one a task records (format 3).
    pub fn new(dataset: &Path, config: EnvConfig) -> Result<Environment> {
        let tasks = TaskSet::load(dataset)?;
        std::fs::create_dir_all(&config.work_dir)
            .with_context(|| format!("{}: cannot create the work directory", config.work_dir.display()))?;
        let python = ensure_venv(&crate::pytest::venv::user_cache_dir(), &[])?;
        let pythons = pythons::build(tasks.tasks.iter().map(|entry| &entry.task))?;
        let settings = Settings::new(config, python).with_pythons(pythons);
        if let Some(folder) = crate::sandbox::confine::readable_beneath(&settings.reads, dataset) {
            log::warn!(
                "the dataset lies beneath {}, which the run tool's commands may read: they can read gold",
                folder.display()
            );
        }
        Ok(Environment { tasks, settings: Arc::new(settings) })
    }

    /// Starts an episode: picks the task and materialises it.
    pub fn reset(&self, request: &ResetRequest) -> Result<(Episode, StepReply), EnvError> {
        let entry = self.tasks.choose(&request.choice).map_err(EnvError::validation)?;
        Episode::start(entry, self.settings.clone(), request.episode_id.clone())
    }
}
