//! The interpreters an environment's tasks run on: a format-3 task records its Python
//! version and the distributions its tests ran with (`python {version, lock}`); each
//! distinct one is built once (a venv of an interpreter of that minor version with the
//! locked distributions, cached like every venv). Format-2 tasks run on the default venv.

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};

use crate::bundle::task::{Task, TaskPython};
use crate::pytest::venv::{ensure_venv_from, user_cache_dir, PythonEnv};
use crate::substrate::detect::interpreter::parse_version;

/// The venvs of a dataset's recorded interpreters, by what the tasks record.
pub(crate) type Pythons = BTreeMap<TaskPython, PythonEnv>;

/// Builds (or finds in the cache) the venv of every distinct `python` of `tasks`.
pub(crate) fn build<'a>(tasks: impl Iterator<Item = &'a Task>) -> Result<Pythons> {
    let mut pythons = Pythons::new();
    for task in tasks {
        let Some(wanted) = &task.python else { continue };
        if pythons.contains_key(wanted) {
            continue;
        }
        let env =
            venv_for(wanted).with_context(|| format!("task {}: building its Python {}", task.id, wanted.version))?;
        pythons.insert(wanted.clone(), env);
    }
    Ok(pythons)
}

/// The venv of a task's recorded `python`: an interpreter of its minor version with its
/// locked distributions (built once, cached like every venv).
pub fn venv_for(wanted: &TaskPython) -> Result<PythonEnv> {
    let Some((major, minor, _)) = parse_version(&wanted.version) else {
        bail!("python version `{}` is not MAJOR.MINOR[.PATCH]; regenerate the dataset", wanted.version)
    };
    let interpreter = interpreter_of(major, minor).with_context(|| {
        format!(
            "no Python {major}.{minor} here: install python{major}.{minor} (on PATH) or set MERGEFORGE_PYTHON to one"
        )
    })?;
    ensure_venv_from(&user_cache_dir(), Some(&interpreter), &wanted.lock)
}

/// The default interpreter when it is `major.minor`, else one present of that version
/// (`python{major}.{minor}` on PATH, or pyenv's).
fn interpreter_of(major: u32, minor: u32) -> Option<String> {
    crate::substrate::detect::interpreter::present_of(major, minor).map(|p| p.command)
}
