//! A substrate's suite at HEAD: it must pass, twice alike, before anything is made from
//! it. With a configured test command a failure refuses the substrate; with a detected
//! one ([`crate::substrate::detect`]) the tests failing or flipping at HEAD are
//! deselected (listed in the manifest), unless they are most of the suite, and a suite
//! over the CPU-time budget is skipped.

use std::time::Duration;

use anyhow::{bail, Result};

use crate::pytest::testrun::{OutcomeCache, TestRunner};
use crate::pytest::venv::PythonEnv;
use crate::substrate::Substrate;

/// The runner of `substrate`'s suite, which passes at HEAD; `substrate`'s test command
/// and `deselected` list gain what detection deselected.
pub(super) fn passing_runner(
    substrate: &mut Substrate,
    python: &PythonEnv,
    cache: &OutcomeCache,
    budget: Duration,
) -> Result<TestRunner> {
    let detected = substrate.detected_command;
    if detected && Duration::from_secs(substrate.config.timeout_s) > budget {
        substrate.config.timeout_s = budget.as_secs().max(1);
    }
    let runner = runner_of(substrate, python, cache);
    // A configured command's HEAD run is the plain full run the outcome cache holds.
    let (head, passing) = match detected {
        true => runner.run_listed(&substrate.files)?,
        false => (runner.run_full(&substrate.files)?, Default::default()),
    };
    if head.timed_out && detected {
        bail!(
            "the suite takes over {} s of CPU time at HEAD (--max-suite-cpu-seconds); give a test_command that runs part of it in a substrate.toml",
            substrate.config.timeout_s
        );
    }
    if !head.passed {
        if !detected {
            refuse(&head.failed_tests, &head.last_line)?;
        }
        // A placeholder (`<missing module _dbm>`) beside real ids says why they fail;
        // alone, nothing can be deselected.
        let failing: Vec<String> = head.failed_tests.iter().filter(|id| !id.starts_with('<')).cloned().collect();
        if failing.is_empty() || head.failed_tests.len() >= crate::pytest::report::MAX_RECORDED_FAILURES {
            refuse(&head.failed_tests, &head.last_line)?;
        }
        if failing.len() > passing.len() {
            bail!(
                "the suite fails at HEAD in {} of {} tests (a service it needs, or a dependency detection did not find?); \
                 write a substrate.toml with the test_command and python_deps it needs",
                failing.len(),
                failing.len() + passing.len()
            );
        }
        deselect(substrate, &failing);
        log::warn!(
            "substrate {}: {} tests failing at HEAD deselected: {}",
            substrate.name,
            failing.len(),
            failing.join(", ")
        );
        let runner = runner_of(substrate, python, cache);
        let again = runner.run_full(&substrate.files)?;
        if !again.passed {
            refuse(&again.failed_tests, &again.last_line)?;
        }
        return settled(substrate, runner, python, cache, &again);
    }
    settled(substrate, runner, python, cache, &head)
}

/// The runner once the tests flipping between two runs at HEAD are dealt with:
/// deselected with a detected command, else refused.
fn settled(
    substrate: &mut Substrate,
    runner: TestRunner,
    python: &PythonEnv,
    cache: &OutcomeCache,
    head: &crate::pytest::outcome::Outcome,
) -> Result<TestRunner> {
    let flipped = runner.flips(&substrate.files, head)?;
    if flipped.is_empty() {
        return Ok(runner);
    }
    if !substrate.detected_command || flipped.iter().any(|id| id.starts_with('<')) {
        bail!("tests flip between two runs at HEAD ({}); fix or deselect them in substrate.toml", flipped.join(", "));
    }
    log::warn!(
        "substrate {}: {} flaky tests at HEAD deselected: {}",
        substrate.name,
        flipped.len(),
        flipped.join(", ")
    );
    deselect(substrate, &flipped);
    Ok(runner_of(substrate, python, cache))
}

fn runner_of(substrate: &Substrate, python: &PythonEnv, cache: &OutcomeCache) -> TestRunner {
    let config = &substrate.config;
    TestRunner::new(
        &config.test_command,
        &config.env,
        Duration::from_secs(config.timeout_s),
        python,
        Some(cache.clone()),
    )
}

/// Adds `--deselect=ID` for each test id (`--ignore=PATH` for a file that fails to
/// collect) to the test command, and the ids to the substrate's list.
fn deselect(substrate: &mut Substrate, ids: &[String]) {
    for id in ids {
        let flag = if id.contains("::") { format!("--deselect={id}") } else { format!("--ignore={id}") };
        if !substrate.config.test_command.contains(&flag) {
            substrate.config.test_command.push(flag);
        }
        if !substrate.deselected.contains(id) {
            substrate.deselected.push(id.clone());
        }
    }
    substrate.deselected.sort();
}

/// The error for a suite failing at HEAD with a configured command.
fn refuse(failed: &[String], last_line: &str) -> Result<()> {
    let shown: Vec<&str> = failed.iter().take(5).map(String::as_str).collect();
    // Without a failing test's id (a usage or collection error), the output's last
    // line says what went wrong.
    let said = match failed.iter().all(|id| id.starts_with('<')) {
        true if !last_line.trim().is_empty() => format!(": {}", last_line.trim()),
        _ => String::new(),
    };
    bail!(
        "tests fail at HEAD ({}{}{said}); fix them or the test command in substrate.toml",
        shown.join(", "),
        if failed.len() > 5 { ", ..." } else { "" }
    )
}
