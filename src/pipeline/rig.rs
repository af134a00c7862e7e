//! What a candidate's trees are tested and checked with: the substrate's runner and
//! checker, or for a history commit with an era ([`crate::substrate::detect::era`]), a
//! runner and checker on the era's venv: the era's interpreter with its requirements
//! resolved as of its date ([`crate::pytest::lock`]). One is built per distinct
//! (interpreter, date, requirements, test command), on first need, and shared (its venv
//! is shared by every era whose lock comes out the same); a failure to build one is
//! remembered, so the candidates of that era are rejected without trying again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Context, Result};

use super::grader_check::Checker;
use crate::pytest::lock;
use crate::pytest::testrun::{OutcomeCache, TestRunner};
use crate::pytest::venv::{ensure_locked_venv, user_cache_dir};
use crate::substrate::detect::era::Era;
use crate::substrate::Substrate;

/// A runner, the checker that shares it, and the test command it runs.
pub(crate) struct Rig {
    pub(crate) runner: Arc<TestRunner>,
    pub(crate) checker: Checker,
    pub(crate) test_command: Vec<String>,
}

/// A rig built once: the first candidate of its era builds it, the others wait for it.
type Built = Arc<OnceLock<Result<Arc<Rig>, String>>>;

/// The rigs of a substrate's eras, by interpreter, date, requirements and command; each
/// built once, while candidates of other eras go on.
#[derive(Default)]
pub(super) struct EraRigs {
    built: Mutex<BTreeMap<String, Built>>,
}

impl EraRigs {
    /// The rig of `era` for `substrate`'s test command, built once; an error says why the
    /// era's environment cannot be had.
    pub(super) fn rig(
        &self,
        era: &Era,
        substrate: &Substrate,
        cache: &OutcomeCache,
        cache_dir: &Path,
    ) -> Result<Arc<Rig>> {
        let requirements = requirements(era, substrate);
        let key = format!(
            "{}\n{}\n{}\n{}",
            era.python.command,
            era.as_of,
            requirements.join("\n"),
            era.test_command.join("\n")
        );
        let cell = {
            let mut built = self.built.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            built.entry(key).or_default().clone()
        };
        let rig = cell.get_or_init(|| {
            build(era, &requirements, substrate, cache, cache_dir).map_err(|err| {
                let (major, minor, _) = era.python.version;
                log::warn!(
                    "{}: Python {major}.{minor} as of {}: {err:#}; its commits are rejected (unresolved-environment; without PyPI, --history-python head runs every commit on HEAD's venv)",
                    substrate.name,
                    era.as_of
                );
                format!("{err:#}")
            })
        });
        rig.clone().map_err(anyhow::Error::msg)
    }
}

/// The era's requirements, with the config's `python_deps` when a config file sets them
/// (they replace a declared requirement of the same name).
fn requirements(era: &Era, substrate: &Substrate) -> Vec<String> {
    use crate::substrate::detect::requirement::name;
    if !substrate.given.contains("python_deps") {
        return era.requirements.clone();
    }
    let given = &substrate.config.python_deps;
    let mut out: Vec<String> =
        era.requirements.iter().filter(|r| !given.iter().any(|g| name(g) == name(r))).cloned().collect();
    out.extend(given.iter().cloned());
    out.sort();
    out
}

fn build(
    era: &Era,
    requirements: &[String],
    substrate: &Substrate,
    cache: &OutcomeCache,
    cache_dir: &Path,
) -> Result<Arc<Rig>> {
    let (major, minor, _) = era.python.version;
    let locks: PathBuf = user_cache_dir();
    let lock = lock::resolve(&locks, (major, minor), &era.as_of, requirements)?;
    for note in &lock.notes {
        log::info!("Python {major}.{minor} as of {}: {note}", era.as_of);
    }
    let python = ensure_locked_venv(&locks, &era.python.command, &lock.pins, &crate::tools::UV.binary()?)
        .with_context(|| format!("a venv of Python {major}.{minor} with the dependencies of {}", era.as_of))?;
    let config = &substrate.config;
    let timeout = std::time::Duration::from_secs(config.timeout_s);
    let runner = Arc::new(TestRunner::new(&era.test_command, &config.env, timeout, &python, Some(cache.clone())));
    let checker = Checker::new(python, cache_dir, Some(runner.clone()));
    Ok(Arc::new(Rig { runner, checker, test_command: era.test_command.clone() }))
}
