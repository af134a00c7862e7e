//! What the environment tells the agent: the observation after reset and after every
//! step, the reply that wraps it (`{observation, reward, done}`, as OpenEnv clients
//! expect), and the episode state.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::reward::RewardComponents;

/// The task being played, as the agent may know it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskInfo {
    pub id: String,
    pub level: String,
    pub family: String,
}

/// Counts read from the test command's summary line (pytest); absent when the tests
/// have not run on the current tree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TestCounts {
    pub passed: usize,
    pub failed: usize,
    pub total: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Observation {
    /// Path → current content of every file git reported as conflicted at reset.
    pub files: BTreeMap<String, String>,
    /// Conflict blocks left in those files.
    pub conflict_count: usize,
    /// Every Python file of the working tree parses.
    pub syntax_valid: bool,
    /// The full test command passed on the current tree.
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
    pub step_count: usize,
    pub max_steps: usize,
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
    pub episode_id: Option<String>,
    pub step_count: usize,
    pub task_id: Option<String>,
    pub level: Option<String>,
    pub family: Option<String>,
    pub done: bool,
    pub total_reward: f64,
    pub max_reward: Option<f64>,
    pub max_steps: usize,
    pub conflict_count: Option<usize>,
}

impl EpisodeState {
    /// The state of a session that has not been reset yet.
    pub fn empty(max_steps: usize) -> Self {
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
pub fn pytest_counts(output: &str) -> Option<TestCounts> {
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

    #[test]
    fn reads_pytest_summaries() {
        let out = "..F\n=== short test summary info ===\nFAILED t.py::x\n3 failed, 17 passed, 1 error in 0.52s\n";
        assert_eq!(pytest_counts(out), Some(TestCounts { passed: 17, failed: 4, total: 21 }));
        assert_eq!(pytest_counts("40 passed in 0.3s\n"), Some(TestCounts { passed: 40, failed: 0, total: 40 }));
        assert_eq!(pytest_counts("1 error in 0.10s"), Some(TestCounts { passed: 0, failed: 1, total: 1 }));
        assert_eq!(pytest_counts("Traceback\n"), None);
    }
}
