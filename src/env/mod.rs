//! The environment: serves dataset tasks to agents as episodes, pays the dense reward,
//! and scores baseline agents through the same code.
//!
//! * [`dataset`] loads a dataset version and picks the task of a reset.
//! * [`workspace`] materialises a task as a real git repository mid-merge and guards
//!   every path an agent names.
//! * [`action`], [`observation`] are the agent-facing types; [`episode`] applies
//!   actions, runs the tests in the sandbox and pays [`reward`] (with the
//!   [`duplication`] check).
//! * [`protocol`] and [`server`] speak OpenEnv over HTTP and WebSocket (`mergeforge
//!   serve`); [`agents`] and [`eval`] run baseline agents (`mergeforge eval`).
//! * [`web`] is the task browser and live demo page that `serve` also offers.
//!
//! This stage reads bundles and task records; it never writes a dataset.

pub mod action;
pub mod agents;
pub mod dataset;
pub mod duplication;
pub mod episode;
pub mod eval;
pub mod observation;
pub mod protocol;
pub mod reward;
pub mod server;
pub mod web;
pub mod workspace;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::pytest::venv::{ensure_venv, PythonEnv};
use dataset::{TaskChoice, TaskSet};
use episode::Episode;
use observation::StepReply;
pub use protocol::{EnvError, ErrorCode};
use reward::RewardWeights;

/// Knobs shared by every episode of an environment.
#[derive(Debug, Clone)]
pub struct EnvConfig {
    /// Steps per episode (every action counts, tool actions included).
    pub max_steps: usize,
    /// Largest `resolution` or `content` accepted, in bytes.
    pub max_resolution_bytes: usize,
    /// Wall-clock limit of one `run` command.
    pub run_timeout: Duration,
    /// Whether the `run` tool is offered.
    pub allow_run: bool,
    pub weights: RewardWeights,
    /// Where episode directories are created.
    pub work_dir: PathBuf,
}

impl Default for EnvConfig {
    fn default() -> Self {
        EnvConfig {
            max_steps: 10,
            max_resolution_bytes: 16 << 20,
            run_timeout: Duration::from_secs(30),
            allow_run: true,
            weights: RewardWeights::default(),
            work_dir: std::env::temp_dir(),
        }
    }
}

/// What every episode needs from its environment.
#[derive(Debug)]
pub struct Settings {
    pub config: EnvConfig,
    pub python: PythonEnv,
}

/// A dataset served as episodes.
pub struct Environment {
    pub tasks: TaskSet,
    pub settings: Arc<Settings>,
}

/// The parameters of a reset (the `data` of a reset frame, the body of `POST /reset`);
/// unknown keys are ignored.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct ResetRequest {
    #[serde(flatten)]
    pub choice: TaskChoice,
    /// At most 255 bytes.
    #[serde(default)]
    #[schemars(length(max = 255))]
    pub episode_id: Option<String>,
}

impl ResetRequest {
    /// Reads the `data` of a reset frame (or the body of `POST /reset`); `null` is the
    /// default reset.
    pub fn parse(data: Value) -> Result<ResetRequest, EnvError> {
        let request: Option<ResetRequest> =
            serde_json::from_value(data).map_err(|e| EnvError::from_json(e, "invalid reset data"))?;
        let request = request.unwrap_or_default();
        if request.episode_id.as_ref().is_some_and(|id| id.len() > 255) {
            return Err(EnvError::validation("reset: `episode_id` is longer than 255 bytes"));
        }
        Ok(request)
    }
}

impl Environment {
    /// Loads the dataset and makes sure the Python interpreter for the tests exists.
    pub fn new(dataset: &Path, config: EnvConfig) -> Result<Environment> {
        let tasks = TaskSet::load(dataset)?;
        std::fs::create_dir_all(&config.work_dir)
            .with_context(|| format!("{}: cannot create the work directory", config.work_dir.display()))?;
        let python = ensure_venv(&crate::pytest::venv::user_cache_dir(), &[])?;
        Ok(Environment { tasks, settings: Arc::new(Settings { config, python }) })
    }

    /// Starts an episode: picks the task and materialises it.
    pub fn reset(&self, request: &ResetRequest) -> Result<(Episode, StepReply), EnvError> {
        let entry = self.tasks.choose(&request.choice).map_err(EnvError::validation)?;
        Episode::start(entry, self.settings.clone(), request.episode_id.clone())
    }
}
