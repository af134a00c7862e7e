//! What a test run comes to: the [`Outcome`] a task records (passed, failing ids, timed
//! out), read from the run's output ([`outcome_of`]), and how many test cases it
//! executed.

use serde::{Deserialize, Serialize};

use super::{last_line, report};
use crate::sandbox::RunOutput;

/// The verdict of one test run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Outcome {
    /// Whether the test command passed.
    pub passed: bool,
    /// Failing or erroring test ids (pytest node ids), sorted, at most 200.
    pub failed_tests: Vec<String>,
    /// Measured wall time: kept in the outcome cache, never in a record (records must
    /// not depend on how fast a machine was).
    #[serde(skip)]
    pub duration_ms: u64,
    /// Present (true) only when the run hit the time limit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(extend("const" = true))]
    pub timed_out: bool,
    /// The last line of the output, for error messages; not part of any record.
    #[serde(skip)]
    pub last_line: String,
}

/// What a run's output says: passed, the failing ids (or a placeholder saying why it
/// failed without naming one), timed out.
pub(crate) fn outcome_of(output: &RunOutput) -> Outcome {
    let passed = output.exit_code == Some(0);
    let mut failed_tests = report::failing_test_ids(&output.output);
    if !passed && failed_tests.is_empty() {
        // Timeouts, crashes and "no tests ran" still need a visible reason.
        failed_tests.push(if output.timed_out {
            "<timeout>".to_string()
        } else {
            format!("<exit {}>", output.exit_code.map_or("signal".to_string(), |c| c.to_string()))
        });
    }
    Outcome {
        passed,
        failed_tests,
        duration_ms: output.duration.as_millis() as u64,
        timed_out: output.timed_out,
        last_line: last_line(&output.output).to_string(),
    }
}

/// Test cases a pytest run executed, from its final summary line
/// (`3 failed, 40 passed, 120 deselected in 0.52s`): everything but deselected.
pub(crate) fn executed_cases(output: &str) -> usize {
    let Some(summary) = output
        .lines()
        .rev()
        .find(|l| l.contains(" in ") && (l.contains("passed") || l.contains("failed") || l.contains("error")))
    else {
        return 0;
    };
    let words: Vec<&str> =
        summary.split(|c: char| c == ',' || c.is_whitespace()).filter(|w| !w.is_empty() && *w != "=").collect();
    words
        .windows(2)
        .filter(|pair| ["passed", "failed", "error", "errors", "skipped", "xfailed", "xpassed"].contains(&pair[1]))
        .filter_map(|pair| pair[0].parse::<usize>().ok())
        .sum()
}
