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
use serde::Serialize;
use serde_json::Value;

use crate::difficulty::Level;
use crate::pytest::venv::{ensure_venv, PythonEnv};
use dataset::{TaskChoice, TaskSet};
use episode::Episode;
use observation::StepReply;
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

/// Error codes of the OpenEnv WebSocket protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    InvalidJson,
    UnknownType,
    ValidationError,
    ExecutionError,
    CapacityReached,
}

/// A request the environment refused or could not carry out; the episode goes on.
#[derive(Debug, Clone, PartialEq)]
pub struct EnvError {
    pub code: ErrorCode,
    pub message: String,
}

impl EnvError {
    pub fn validation(message: impl Into<String>) -> Self {
        EnvError { code: ErrorCode::ValidationError, message: message.into() }
    }
    pub fn execution(message: impl Into<String>) -> Self {
        EnvError { code: ErrorCode::ExecutionError, message: message.into() }
    }
}

impl std::fmt::Display for EnvError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The parameters of a reset; unknown keys are ignored.
#[derive(Debug, Clone, Default)]
pub struct ResetRequest {
    pub choice: TaskChoice,
    pub episode_id: Option<String>,
}

impl ResetRequest {
    /// Reads the `data` of a reset frame (or the body of `POST /reset`).
    pub fn from_json(data: &Value) -> Result<ResetRequest, EnvError> {
        let object = match data {
            Value::Null => return Ok(ResetRequest::default()),
            Value::Object(map) => map,
            _ => return Err(EnvError::validation("reset data must be a JSON object")),
        };
        let text = |key: &str| -> Result<Option<String>, EnvError> {
            match object.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(EnvError::validation(format!("reset: `{key}` must be a string"))),
            }
        };
        let level = match text("difficulty")? {
            None => None,
            Some(name) => Some(Level::ALL.into_iter().find(|l| l.name() == name).ok_or_else(|| {
                EnvError::validation(format!("reset: unknown difficulty `{name}`: expected easy, medium or hard"))
            })?),
        };
        let seed = match object.get("seed") {
            None | Some(Value::Null) => None,
            Some(value) => Some(
                value.as_u64().ok_or_else(|| EnvError::validation("reset: `seed` must be a non-negative integer"))?,
            ),
        };
        let episode_id = text("episode_id")?;
        if episode_id.as_ref().is_some_and(|id| id.len() > 255) {
            return Err(EnvError::validation("reset: `episode_id` is longer than 255 bytes"));
        }
        Ok(ResetRequest { choice: TaskChoice { task_id: text("task_id")?, level, seed }, episode_id })
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
