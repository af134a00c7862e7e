//! Reads pytest's console report: which test ids failed or errored.
//!
//! The test command gets `-rfE` appended, so pytest's "short test summary info" lists
//! every failure as `FAILED <id> - <message>` (`FAIL <id>` before pytest 4) and every
//! error as `ERROR <id> - <message>`.

/// At most this many failing ids are kept per outcome; the count is kept separately.
pub(crate) const MAX_RECORDED_FAILURES: usize = 200;

/// Failing test ids in the order pytest reported them, deduplicated, capped.
pub(crate) fn failing_test_ids(output: &str) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for line in output.lines() {
        // pytest before 4 writes `FAIL <id>` (a history commit's era may have one).
        let rest =
            line.strip_prefix("FAILED ").or_else(|| line.strip_prefix("ERROR ")).or_else(|| line.strip_prefix("FAIL "));
        // A captured log record (`ERROR    pkg.mod:mod.py:524 fetch failed`) pads its
        // level name; the summary's `ERROR <id>` never does.
        let Some(rest) = rest.filter(|rest| !rest.starts_with(char::is_whitespace)) else { continue };
        let id = test_id_of(rest);
        if !id.is_empty() && !ids.iter().any(|known| known == id) {
            ids.push(id.to_string());
        }
        if ids.len() >= MAX_RECORDED_FAILURES {
            break;
        }
    }
    ids.sort();
    ids
}

/// Test ids pytest reported as passed (`PASSED <id>` lines of the short summary, which
/// `-rp` asks for), uncapped.
pub(crate) fn passed_test_ids(output: &str) -> std::collections::BTreeSet<String> {
    output
        .lines()
        .filter_map(|line| line.strip_prefix("PASSED "))
        .map(|rest| test_id_of(rest).to_string())
        .filter(|id| !id.is_empty())
        .collect()
}

/// The id at the start of a summary line's rest: up to ` - `, but a parametrized id
/// (`test_p[1 - 2]`) runs to its closing bracket.
fn test_id_of(rest: &str) -> &str {
    let dash = rest.find(" - ");
    if let Some(open) = rest.find('[') {
        if dash.is_none_or(|d| open < d) {
            if let Some(close) = rest[open..].find("] - ") {
                return rest[..open + close + 1].trim();
            }
            if rest.trim_end().ends_with(']') {
                return rest.trim();
            }
        }
    }
    dash.map_or(rest, |d| &rest[..d]).trim()
}

/// Whether `argv` runs pytest (so that pytest-specific flags may be appended).
pub(crate) fn is_pytest(argv: &[String]) -> bool {
    argv.iter().any(|a| a == "pytest" || a.ends_with("/pytest"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_passed_lines() {
        let output = "PASSED tests/test_a.py::test_x\nPASSED tests/test_a.py::test_p[1 - 2]\nFAILED t.py::y - no\n";
        let ids: Vec<String> = passed_test_ids(output).into_iter().collect();
        assert_eq!(ids, ["tests/test_a.py::test_p[1 - 2]", "tests/test_a.py::test_x"]);
    }

    #[test]
    fn reads_failed_and_error_lines() {
        let output = "..F\n=== short test summary info ===\n\
            FAILED tests/test_a.py::test_x - assert 1 == 2\n\
            ERROR tests/test_b.py - SyntaxError: invalid syntax\n\
            FAILED tests/test_a.py::test_p[1 - 2] - boom\n\
            1 failed, 2 passed, 1 error in 0.12s\n";
        assert_eq!(
            failing_test_ids(output),
            vec![
                "tests/test_a.py::test_p[1 - 2]".to_string(),
                "tests/test_a.py::test_x".to_string(),
                "tests/test_b.py".to_string()
            ]
        );
    }

    #[test]
    fn reads_the_fail_lines_of_pytest_3() {
        let output = "=== short test summary info ===\nFAIL t/test_a.py::test_bad\nERROR t/test_a.py::test_err\n\
            === 1 failed, 1 passed, 1 error in 0.02 seconds ===\n";
        assert_eq!(failing_test_ids(output), ["t/test_a.py::test_bad", "t/test_a.py::test_err"]);
    }

    #[test]
    fn captured_log_records_are_not_ids() {
        let output = "F\n----- Captured log call -----\n\
            ERROR    distlib.locators:locators.py:524 JSON fetch failed: <urlopen error>\n\
            === short test summary info ===\n\
            FAILED tests/test_locators.py::LocatorTestCase::test_json - OSError\n";
        assert_eq!(failing_test_ids(output), ["tests/test_locators.py::LocatorTestCase::test_json"]);
    }
}
