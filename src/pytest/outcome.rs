//! What a test run comes to: the [`Outcome`] a task records (passed, failing ids, timed
//! out, a module Python could not import), read from the run's output ([`outcome_of`]),
//! and how many test cases it executed.

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
    pub(crate) duration_ms: u64,
    /// Present (true) only when the run hit the time limit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    #[schemars(extend("const" = true))]
    pub timed_out: bool,
    /// The run ran out of memory (Python raised `MemoryError` under the address-space
    /// limit): kept in the outcome cache, never in a record. Whether a runaway
    /// allocation meets the memory limit or the time limit first depends on the machine,
    /// so the two are one verdict where it matters ([`Outcome::exhausted`]).
    #[serde(skip)]
    pub out_of_memory: bool,
    /// The last line of the output, for error messages; not part of any record.
    #[serde(skip)]
    pub last_line: String,
}

impl Outcome {
    /// Whether the run hit a resource limit: the time limit or the memory limit.
    pub(crate) fn exhausted(&self) -> bool {
        self.timed_out || self.out_of_memory
    }
}

/// What a run's output says: passed, the failing ids (or a placeholder saying why it
/// failed without naming one), timed out.
pub(crate) fn outcome_of(output: &RunOutput) -> Outcome {
    let passed = output.exit_code == Some(0);
    let mut failed_tests = report::failing_test_ids(&output.output);
    if let Some(module) = missing_module(&output.output).filter(|_| !passed) {
        failed_tests.push(format!("{MISSING_MODULE}{module}>"));
        failed_tests.sort();
    }
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
        out_of_memory: !passed && ran_out_of_memory(&output.output),
        last_line: last_line(&output.output).to_string(),
    }
}

/// Whether `output` shows a `MemoryError` ending pytest (`INTERNALERROR> MemoryError`)
/// or a test (`E   MemoryError`, a traceback's last line).
fn ran_out_of_memory(output: &str) -> bool {
    output.lines().any(|line| {
        let line = line.strip_prefix("INTERNALERROR>").or_else(|| line.strip_prefix('E')).unwrap_or(line);
        line.trim_start().starts_with("MemoryError")
    })
}

/// The placeholder id a failing run gets when Python could not import a module:
/// `<missing module NAME>` (NAME as Python named it, dotted).
pub(crate) const MISSING_MODULE: &str = "<missing module ";

/// The first module Python reported missing in `output`
/// (`ModuleNotFoundError: No module named 'yaml'`).
fn missing_module(output: &str) -> Option<&str> {
    const MARK: &str = "ModuleNotFoundError: No module named '";
    let at = output.find(MARK)? + MARK.len();
    let name = &output[at..];
    name.find('\'').map(|end| &name[..end]).filter(|n| !n.is_empty())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(exit_code: i32, output: &str) -> RunOutput {
        RunOutput {
            exit_code: Some(exit_code),
            output: output.to_string(),
            duration: std::time::Duration::ZERO,
            cpu: std::time::Duration::ZERO,
            timed_out: false,
            truncated: false,
        }
    }

    #[test]
    fn a_module_python_could_not_import_is_named_among_the_failures() {
        let output = "ERROR collecting tests/test_meta.py\nE   ModuleNotFoundError: No module named 'yaml.loader'\n\
                      ERROR tests/test_meta.py\n1 error in 0.10s\n";
        let outcome = outcome_of(&run(2, output));
        assert!(outcome.failed_tests.contains(&"<missing module yaml.loader>".to_string()), "{outcome:?}");
        // A passing run names none, whatever it printed.
        let printed = "ModuleNotFoundError: No module named 'yaml'\n1 passed in 0.01s\n";
        assert!(outcome_of(&run(0, printed)).failed_tests.is_empty());
        assert_eq!(missing_module("ModuleNotFoundError: No module named ''"), None);
    }

    #[test]
    fn a_memory_error_that_ended_pytest_or_a_test_is_running_out_of_memory() {
        // As pytest prints them: an internal error while it formats a report, a test's
        // traceback.
        let internal = "INTERNALERROR>     return compile(source, filename, mode, flags,\n\
                        INTERNALERROR> MemoryError\n\n3 failed, 100 passed in 56.90s\n";
        assert!(outcome_of(&run(3, internal)).out_of_memory);
        let test = "    def test_hoard():\n>       hoard.append(bytearray(1 << 28))\nE       MemoryError\n\n\
                    FAILED tests/test_a.py::test_hoard - MemoryError\n1 failed in 2.00s\n";
        assert!(outcome_of(&run(1, test)).out_of_memory);
        // A test that names the error without raising it, and a passing run, did not.
        let named = "E       AssertionError: assert 'MemoryError' == 'ValueError'\n1 failed in 0.01s\n";
        assert!(!outcome_of(&run(1, named)).out_of_memory);
        assert!(!outcome_of(&run(0, "MemoryError\n1 passed in 0.01s\n")).out_of_memory);
    }
}
