//! What an environment is configured with ([`EnvConfig`]) and what every episode gets
//! from it ([`Settings`]: the configuration, the tests' interpreter, what commands may
//! read and the tasks' templates).

use std::path::PathBuf;
use std::time::Duration;

use super::grader::KnownFailures;
use super::reward::RewardWeights;
use super::template::{ResetPath, Templates};
use crate::pytest::venv::PythonEnv;
use crate::sandbox::Reads;

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
    /// Whether `run` is offered where Landlock is not enforced (its commands could then
    /// read the dataset and other episodes).
    pub allow_unconfined_run: bool,
    pub weights: RewardWeights,
    /// Whether observations and the state name the task's level and family
    /// (`serve --reveal-task-info`; `eval` always does). Off by default: the label would
    /// tell an agent how the task was made.
    pub reveal_task_info: bool,
    /// Where episode directories (and the templates they are copied from) are created.
    pub work_dir: PathBuf,
    /// How a reset makes the episode's repository (a copy of the task's template by
    /// default).
    pub reset_path: ResetPath,
}

impl Default for EnvConfig {
    fn default() -> Self {
        EnvConfig {
            max_steps: 10,
            max_resolution_bytes: 16 << 20,
            run_timeout: Duration::from_secs(30),
            allow_run: true,
            allow_unconfined_run: false,
            weights: RewardWeights::default(),
            reveal_task_info: false,
            work_dir: std::env::temp_dir(),
            reset_path: ResetPath::default(),
        }
    }
}

/// What every episode needs from its environment.
#[derive(Debug)]
pub struct Settings {
    pub(crate) config: EnvConfig,
    /// The default interpreter: format-2 tasks' (and the grader check's at generation).
    pub(crate) python: PythonEnv,
    /// The interpreters format-3 tasks record ([`super::pythons`]).
    pub(crate) pythons: super::pythons::Pythons,
    /// What the `run` tool's commands and the graded test runs may read: their own
    /// folder, the system's and the interpreter's, never the dataset or another episode.
    pub reads: Reads,
    /// Each task's prepared repository, which resets copy.
    pub templates: Templates,
    /// Graded trees known to fail without a run (the grader check at generation only).
    pub(crate) known_failures: Option<KnownFailures>,
}

impl Settings {
    /// Settings whose commands read only their folder, the system's and `python`'s.
    pub(crate) fn new(config: EnvConfig, python: PythonEnv) -> Settings {
        let reads = Reads::Only(python.prefixes());
        let templates = Templates::new(&config.work_dir);
        Settings { config, python, pythons: Default::default(), reads, templates, known_failures: None }
    }

    /// These settings with the interpreters of format-3 tasks, whose folders the
    /// commands may read too.
    pub(crate) fn with_pythons(mut self, pythons: super::pythons::Pythons) -> Settings {
        let mut prefixes = self.python.prefixes();
        prefixes.extend(pythons.values().flat_map(PythonEnv::prefixes));
        prefixes.sort();
        prefixes.dedup();
        self.reads = Reads::Only(prefixes);
        self.pythons = pythons;
        self
    }

    /// The interpreter `task`'s tests run on: the one it records, else the default.
    pub(crate) fn python_for(&self, task: &crate::bundle::task::Task) -> &PythonEnv {
        task.python.as_ref().and_then(|wanted| self.pythons.get(wanted)).unwrap_or(&self.python)
    }
}
