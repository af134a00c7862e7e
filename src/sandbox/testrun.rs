//! Runs a substrate's test command on a tree and reduces the run to an [`Outcome`],
//! with a content-addressed cache so that no tree is tested twice with the same command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::python::PythonEnv;
use super::pytest_report;
use super::{run_in_fresh_tree, Limits, RunRequest};
use crate::snapshot::{content_id, sha256_hex, Snapshot};

/// The verdict of one test run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub passed: bool,
    /// Failing or erroring test ids (pytest node ids), sorted, at most 200.
    pub failed_tests: Vec<String>,
    pub duration_ms: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
    /// The last line of the output, for error messages; not part of any record.
    #[serde(skip)]
    pub last_line: String,
}

/// Everything that decides a test run's outcome except the tree.
pub struct TestRunner {
    argv: Vec<String>,
    env: BTreeMap<String, String>,
    limits: Limits,
    /// Hash of (argv as configured, env, python version): half of every cache key.
    command_key: String,
    cache: Option<OutcomeCache>,
}

impl TestRunner {
    /// `test_command` as configured (with `python` meaning the venv's interpreter).
    pub fn new(
        test_command: &[String],
        env: &BTreeMap<String, String>,
        timeout: Duration,
        python: &PythonEnv,
        cache: Option<OutcomeCache>,
    ) -> Self {
        let mut argv: Vec<String> = test_command
            .iter()
            .map(|arg| {
                if arg == "python" || arg == "python3" {
                    python.interpreter.to_string_lossy().into_owned()
                } else {
                    arg.clone()
                }
            })
            .collect();
        if pytest_report::is_pytest(&argv) {
            argv.push("-rfE".to_string());
        }
        let identity = serde_json::json!({
            "test_command": test_command,
            "env": env,
            "python": python.version,
            "pytest": super::python::PYTEST_REQUIREMENT,
        });
        TestRunner {
            argv,
            env: env.clone(),
            limits: Limits::for_tests(timeout),
            command_key: sha256_hex(identity.to_string().as_bytes()),
            cache,
        }
    }

    /// Runs the tests on `tree` (or returns the cached outcome for it).
    pub fn run(&self, tree: &Snapshot) -> Result<Outcome> {
        let key = sha256_hex(format!("{}:{}", self.command_key, content_id(tree)).as_bytes());
        if let Some(cache) = &self.cache {
            if let Some(outcome) = cache.get(&key) {
                return Ok(outcome);
            }
        }
        let output = run_in_fresh_tree(&RunRequest {
            tree,
            argv: &self.argv,
            env: &self.env,
            limits: &self.limits,
        })?;
        let passed = output.exit_code == Some(0);
        let mut failed_tests = pytest_report::failing_test_ids(&output.output);
        if !passed && failed_tests.is_empty() {
            // Timeouts, crashes and "no tests ran" still need a visible reason.
            failed_tests.push(if output.timed_out {
                "<timeout>".to_string()
            } else {
                format!("<exit {}>", output.exit_code.map_or("signal".to_string(), |c| c.to_string()))
            });
        }
        let outcome = Outcome {
            passed,
            failed_tests,
            duration_ms: output.duration.as_millis() as u64,
            timed_out: output.timed_out,
            last_line: output.output.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").to_string(),
        };
        if let Some(cache) = &self.cache {
            cache.put(&key, &outcome)?;
        }
        Ok(outcome)
    }
}

/// Prefix of an entry being written.
const TEMP_PREFIX: &str = ".tmp-";

/// Outcomes on disk, one small JSON file per key: `<dir>/<key[0..2]>/<key>.json`.
/// Files are written to a temporary name and renamed, so a killed run leaves no
/// half-written entry, at most a temporary file that [`OutcomeCache::sweep_leftovers`]
/// removes later (see [`crate::leftovers`]). Several processes may share one cache.
#[derive(Debug, Clone)]
pub struct OutcomeCache {
    dir: PathBuf,
}

impl OutcomeCache {
    pub fn new(dir: &Path) -> Self {
        OutcomeCache { dir: dir.to_path_buf() }
    }

    /// Removes the temporary files of writers that were killed; returns how many.
    pub fn sweep_leftovers(&self) -> usize {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return 0 };
        entries.flatten().map(|e| crate::leftovers::sweep(&e.path(), TEMP_PREFIX)).sum()
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Option<Outcome> {
        let text = std::fs::read_to_string(self.path(key)).ok()?;
        serde_json::from_str(&text).ok()
    }

    pub fn put(&self, key: &str, outcome: &Outcome) -> Result<()> {
        let path = self.path(key);
        let parent = path.parent().context("cache path has no parent")?;
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating outcome cache {}", parent.display()))?;
        let mut text = serde_json::to_string(outcome)?;
        text.push('\n');
        let mut temp = tempfile::Builder::new()
            .prefix(&format!("{TEMP_PREFIX}{}-", crate::leftovers::owner_tag()))
            .tempfile_in(parent)?;
        std::io::Write::write_all(&mut temp, text.as_bytes())?;
        temp.persist(&path).map_err(|e| e.error)?;
        Ok(())
    }
}
