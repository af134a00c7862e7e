//! The grader check of a kept candidate (graders are checked per task): its
//! bundle is written to a scratch folder and every baseline agent plays it through the
//! environment's own episode code ([`crate::env::check`]), with the environment's
//! default settings and the substrate's interpreter. A task that fails the check is
//! rejected (`grader-check`); one that passes gets the scores and gold's passing test
//! ids in its `solution.json`.
//!
//! Checks are cached by the bytes of `task.json` (which digests both bundles and the
//! unchecked `solution.json`), so a run from a warm cache plays nothing again.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::bundle::record::TaskFiles;
use crate::bundle::solution::GraderCheck;
use crate::bundle::task;
use crate::env::config::{EnvConfig, Settings};
use crate::env::dataset::TaskEntry;
use crate::env::grader::{GoldCache, KnownFailures};
use crate::forge::SideRule;
use crate::pytest::cache::write_atomically;
use crate::pytest::testrun::TestRunner;
use crate::pytest::venv::PythonEnv;
use crate::resolve::{self, Rung};
use crate::snapshot::Snapshot;
use crate::validate::Rejection;

/// Bump when what the check does changes, so cached checks are made again (a change of
/// the eval agents needs no bump: [`plays_every_agent`]).
const CHECK_VERSION: &str = "3";

/// What the episodes of a substrate's checks need: the environment's default settings
/// with the substrate's interpreter, and where checks are cached.
pub(crate) struct Checker {
    settings: Arc<Settings>,
    cache_dir: PathBuf,
}

impl Checker {
    /// A checker whose episodes grade with `python`; a graded tree `runner` has already
    /// seen fail (the ladder's trees: the baseline agents submit them) is not run again.
    pub(crate) fn new(python: PythonEnv, cache_dir: &Path, runner: Option<Arc<TestRunner>>) -> Checker {
        let mut settings = Settings::new(EnvConfig::default(), python);
        settings.known_failures =
            runner.map(|runner| KnownFailures(Arc::new(move |tree: &Snapshot| runner.known_to_fail(tree))));
        Checker { settings: Arc::new(settings), cache_dir: cache_dir.join("grader-checks") }
    }

    /// The environment's settings the checks' episodes run with (the agent rung's too).
    pub(crate) fn settings(&self) -> &Arc<Settings> {
        &self.settings
    }

    /// The substrate's venv, which the checks' tests run with.
    pub(crate) fn python(&self) -> &PythonEnv {
        &self.settings.python
    }
}

/// A check as cached: the scores, and why the task failed it.
#[derive(Serialize, Deserialize)]
struct CachedCheck {
    check: GraderCheck,
    failure: Option<String>,
}

/// `files` with the check recorded, or the rejection of a task that fails it.
pub(super) fn check(checker: &Checker, files: TaskFiles) -> Result<Result<TaskFiles, Rejection>> {
    let key = cache_key(&files, &checker.settings.python)?;
    let path = checker.cache_dir.join(&key[..2]).join(format!("{key}.json"));
    // A check cached before the eval agents changed (a resolver added to the catalogue)
    // lacks an agent's episode: it is played again.
    let cached = match read_cached(&path).filter(plays_every_agent) {
        Some(cached) => cached,
        None => {
            let made = play(checker, &files)?;
            let mut text = serde_json::to_string(&made)?;
            text.push('\n');
            write_atomically(&path, text.as_bytes()).context("writing the grader check cache")?;
            made
        }
    };
    if let Some(agent) = side_agent_solving(&files, &cached.check) {
        log::info!(
            "task {}: the {agent} agent solves it, though taking one side for every hunk must not; dropped (grader-check)",
            files.task.id
        );
        return Ok(Err(Rejection::GraderCheck));
    }
    Ok(match cached.failure {
        Some(_) => Err(Rejection::GraderCheck),
        None => Ok(files.with_grader(cached.check)?),
    })
}

/// The agent of an easy-rung resolver (one side taken for every hunk) that solved a task
/// of a family whose sides must both be needed ([`SideRule::BothPass`]): the ladder found
/// no side solving it, so the two disagree (a flaky test, or a tree the ladder did not
/// run), and the task is not sound.
fn side_agent_solving(files: &TaskFiles, check: &GraderCheck) -> Option<&'static str> {
    if files.task.family.side_rule() != SideRule::BothPass {
        return None;
    }
    let mut sides = resolve::ALL.iter().filter(|r| r.rung() == Rung::Easy).filter_map(|r| r.agent());
    sides.find(|name| check.agents.iter().any(|a| a.solved && a.agent == *name))
}

/// Whether `cached` holds an episode of every eval agent, in their order.
fn plays_every_agent(cached: &CachedCheck) -> bool {
    cached.check.agents.iter().map(|a| a.agent.as_str()).eq(crate::env::agents::names())
}

fn read_cached(path: &Path) -> Option<CachedCheck> {
    serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
}

fn cache_key(files: &TaskFiles, python: &PythonEnv) -> Result<String> {
    let json = task::to_json_bytes(&files.task)?;
    let mut key = format!("grader-check {CHECK_VERSION}\n{}\n{}\n", python.version, python.packages).into_bytes();
    key.extend_from_slice(&json);
    Ok(crate::snapshot::sha256_hex(&key))
}

/// `files` as the environment serves a task, its bundle in a scratch folder (removed
/// when the returned folder is dropped).
pub(super) fn scratch_entry(files: &TaskFiles) -> Result<(tempfile::TempDir, Arc<TaskEntry>)> {
    let scratch =
        tempfile::Builder::new().prefix("mergeforge-check-").tempdir().context("creating a scratch folder")?;
    let bundle = scratch.path().join(crate::bundle::record::REPO_BUNDLE);
    std::fs::write(&bundle, &files.repo_bundle).with_context(|| format!("writing {}", bundle.display()))?;
    let entry = Arc::new(TaskEntry {
        task: files.task.clone(),
        solution: files.solution.clone(),
        bundle,
        gold: GoldCache::default(),
    });
    Ok((scratch, entry))
}

/// Plays the check's episodes on `files`, from a scratch copy of its bundle.
fn play(checker: &Checker, files: &TaskFiles) -> Result<CachedCheck> {
    let (_scratch, entry) = scratch_entry(files)?;
    let outcome = crate::env::check::check(&checker.settings, &entry);
    if let Some(failure) = &outcome.failure {
        log::info!("task {} fails the grader check ({failure}); dropped (grader-check)", files.task.id);
    }
    Ok(CachedCheck { check: outcome.check, failure: outcome.failure })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::Manifest;
    use crate::pytest::venv::{ensure_venv, user_cache_dir};

    /// A committed sample task's files as generation sees them before the check.
    fn unchecked_sample_task(id: &str) -> (TaskFiles, GraderCheck) {
        let version = Path::new(env!("CARGO_MANIFEST_DIR")).join("generated/mergeforge-embedded/1.0.0");
        let manifest: Manifest =
            serde_json::from_slice(&std::fs::read(version.join("manifest.json")).unwrap()).unwrap();
        let entry = manifest.tasks.iter().find(|t| t.id == id).expect("the task is in the sample");
        let mut files = TaskFiles::load(&version.join("tasks").join(id), &entry.sha256).unwrap();
        let recorded = files.solution.grader.take().expect("the sample records its check");
        (files, recorded)
    }

    #[test]
    fn a_sound_task_gets_its_scores_and_one_whose_gold_cannot_solve_is_rejected() {
        let python = ensure_venv(&user_cache_dir(), &[]).unwrap();
        let (files, recorded) = unchecked_sample_task("calculator-c80129ecf3");

        let cache = tempfile::tempdir().unwrap();
        let kept = check(&Checker::new(python.clone(), cache.path(), None), files.clone()).unwrap();
        assert_eq!(kept.expect("kept").solution.grader, Some(recorded), "the same scores as at generation");

        // Gold that empties the conflicted module cannot pass: the gold agent's episode
        // fails, so the task is dropped.
        let mut broken = files;
        broken.solution.files[0].gold = String::new();
        let cache = tempfile::tempdir().unwrap();
        let verdict = check(&Checker::new(python, cache.path(), None), broken).unwrap();
        assert!(matches!(verdict, Err(Rejection::GraderCheck)));
    }

    #[test]
    fn a_side_agent_solving_an_integration_task_fails_the_check() {
        let (files, recorded) = unchecked_sample_task("calculator-4b6cec0f51");
        assert_eq!(files.task.family.side_rule(), SideRule::BothPass);
        assert_eq!(side_agent_solving(&files, &recorded), None, "the sample task as checked");
        let mut solved = recorded.clone();
        solved.agents.iter_mut().filter(|a| a.agent == "theirs").for_each(|a| a.solved = true);
        assert_eq!(side_agent_solving(&files, &solved), Some("theirs"));
        // A repair task's sides may solve it (divergent-edit: exactly one side passes).
        let (repair, check) = unchecked_sample_task("calculator-c80129ecf3");
        assert_ne!(repair.task.family.side_rule(), SideRule::BothPass);
        assert!(check.agents.iter().any(|a| a.solved && (a.agent == "ours" || a.agent == "theirs")));
        assert_eq!(side_agent_solving(&repair, &check), None);
    }
}
