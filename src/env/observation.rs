//! What the environment tells the agent: the observation after reset and after every
//! step, the reply that wraps it (`{observation, reward, done}`, as OpenEnv clients
//! expect), and the episode state.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::reward::RewardComponents;

/// Every key an observation carries: the allowlist. A field added to [`Observation`]
/// must be added here too, or the tests fail (`tests/it/env_episode.rs` serialises a
/// real episode's observation and compares its keys; the unit test below compares the
/// schema's).
pub const OBSERVATION_KEYS: &[&str] = &[
    "files",
    "conflict_count",
    "syntax_valid",
    "tests_passing",
    "tests",
    "done",
    "task",
    "last_output",
    "reward_components",
    "max_reward",
    "total_reward",
    "step_count",
    "max_steps",
];

/// The keys of the observation's `task`, by default.
pub const TASK_KEYS: &[&str] = &["id"];

/// The keys only `serve --reveal-task-info` adds, to `task` and to the state: they name
/// how the task was made, which an agent must learn from the code, not from a label.
pub const REVEALED_KEYS: &[&str] = &["level", "family"];

/// Every key of the state (`GET /state`, the `state` frame), by default.
pub const STATE_KEYS: &[&str] =
    &["episode_id", "step_count", "task_id", "done", "total_reward", "max_reward", "max_steps", "conflict_count"];

/// The task being played, as the agent may know it: its id; its level and family only
/// when the server reveals them ([`REVEALED_KEYS`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskInfo {
    pub id: String,
    /// Only with `--reveal-task-info`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Only with `--reveal-task-info`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
}

/// Counts read from the test command's summary line (pytest); absent when the tests
/// have not run on the current tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestCounts {
    pub(crate) passed: usize,
    pub(crate) failed: usize,
    pub(crate) total: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Observation {
    /// Path → current content of every file git reported as conflicted at reset.
    pub files: BTreeMap<String, String>,
    /// Conflict blocks left in those files.
    pub conflict_count: usize,
    /// Every Python file of the working tree parses.
    pub syntax_valid: bool,
    /// The graded test run passed on the current tree: gold's test files restored over
    /// it, every test that passes on gold passing.
    pub tests_passing: bool,
    /// Test counts of the last run on the current tree, if any.
    pub tests: Option<TestCounts>,
    pub done: bool,
    pub task: TaskInfo,
    /// Output of the last tool action (read_file, run, ...) or a note on the step.
    pub last_output: String,
    /// This step's reward by component.
    pub reward_components: RewardComponents,
    /// The most an episode of this task can earn.
    pub max_reward: f64,
    /// The sum of rewards so far in this episode.
    pub total_reward: f64,
    pub(crate) step_count: usize,
    pub(crate) max_steps: usize,
}

/// The answer to a reset or a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct StepReply {
    pub observation: Observation,
    /// `None` after reset.
    pub reward: Option<f64>,
    pub done: bool,
}

/// `GET /state` and the `state` frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EpisodeState {
    pub(crate) episode_id: Option<String>,
    pub step_count: usize,
    pub(crate) task_id: Option<String>,
    /// Only with `--reveal-task-info`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) level: Option<String>,
    /// Only with `--reveal-task-info`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) family: Option<String>,
    pub(crate) done: bool,
    pub(crate) total_reward: f64,
    pub(crate) max_reward: Option<f64>,
    pub(crate) max_steps: usize,
    pub(crate) conflict_count: Option<usize>,
}

impl EpisodeState {
    /// The state of a session that has not been reset yet.
    pub(crate) fn empty(max_steps: usize) -> Self {
        EpisodeState {
            episode_id: None,
            step_count: 0,
            task_id: None,
            level: None,
            family: None,
            done: false,
            total_reward: 0.0,
            max_reward: None,
            max_steps,
            conflict_count: None,
        }
    }
}

/// Reads pytest's final summary (`3 failed, 17 passed, 1 error in 0.52s`).
pub(crate) fn pytest_counts(output: &str) -> Option<TestCounts> {
    let line = output.lines().rev().find(|l| {
        let l = l.trim().trim_matches('=').trim();
        (l.contains(" passed") || l.contains(" failed") || l.contains(" error") || l.contains("no tests ran"))
            && l.contains(" in ")
    })?;
    let mut counts = TestCounts::default();
    let words: Vec<&str> = line.split(|c: char| c == ',' || c.is_whitespace()).filter(|w| !w.is_empty()).collect();
    for pair in words.windows(2) {
        let Ok(n) = pair[0].parse::<usize>() else { continue };
        match pair[1].trim_end_matches(',') {
            "passed" => counts.passed += n,
            "failed" | "error" | "errors" => counts.failed += n,
            _ => {}
        }
    }
    counts.total = counts.passed + counts.failed;
    Some(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys_of(schema: &serde_json::Value) -> Vec<String> {
        let mut keys: Vec<String> = schema["properties"].as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    }

    fn sorted(keys: &[&[&str]]) -> Vec<String> {
        let mut all: Vec<String> = keys.iter().flat_map(|k| k.iter().map(|s| s.to_string())).collect();
        all.sort();
        all
    }

    #[test]
    fn the_types_carry_only_allowlisted_keys() {
        let observation = serde_json::to_value(schemars::schema_for!(Observation)).unwrap();
        assert_eq!(keys_of(&observation), sorted(&[OBSERVATION_KEYS]), "a new field needs OBSERVATION_KEYS");
        let task = serde_json::to_value(schemars::schema_for!(TaskInfo)).unwrap();
        assert_eq!(keys_of(&task), sorted(&[TASK_KEYS, REVEALED_KEYS]), "a new field needs TASK_KEYS");
        let state = serde_json::to_value(schemars::schema_for!(EpisodeState)).unwrap();
        assert_eq!(keys_of(&state), sorted(&[STATE_KEYS, REVEALED_KEYS]), "a new field needs STATE_KEYS");
    }

    #[test]
    fn reads_pytest_summaries() {
        let out = "..F\n=== short test summary info ===\nFAILED t.py::x\n3 failed, 17 passed, 1 error in 0.52s\n";
        assert_eq!(pytest_counts(out), Some(TestCounts { passed: 17, failed: 4, total: 21 }));
        assert_eq!(pytest_counts("40 passed in 0.3s\n"), Some(TestCounts { passed: 40, failed: 0, total: 40 }));
        assert_eq!(pytest_counts("1 error in 0.10s"), Some(TestCounts { passed: 0, failed: 1, total: 1 }));
        assert_eq!(pytest_counts("Traceback\n"), None);
    }
}
