//! The Python interpreter that runs a substrate's tests: a virtual environment with
//! pytest and the substrate's `python_deps`, created once and cached by a hash of the
//! base interpreter's version and the requirement list.
//!
//! [`installed_packages`] hashes what the venv holds (a dependency can be installed or
//! upgraded in it by hand), for the outcome cache's key.
//!
//! Layout: `<cache>/venvs/<key>/` with a `.ready` marker written last. A venv is built
//! in a temporary sibling directory and renamed into place, so a killed build never
//! leaves a half-made venv that looks ready.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use anyhow::{bail, Context, Result};

use crate::snapshot::sha256_hex;

/// The pytest every venv gets, pinned so that outcomes do not drift between machines.
pub(crate) const PYTEST_REQUIREMENT: &str = "pytest==8.4.2";

/// The version [`PYTEST_REQUIREMENT`] pins (`8.4.2`).
pub fn pytest_version() -> &'static str {
    pinned_version(PYTEST_REQUIREMENT)
}

/// A ready interpreter.
#[derive(Debug, Clone)]
pub struct PythonEnv {
    /// `<venv>/bin/python`.
    pub interpreter: PathBuf,
    /// `Python 3.11.7`, as the interpreter reports it.
    pub version: String,
    /// A hash of the distributions installed in the venv (names and versions, see
    /// [`installed_packages`]): part of every outcome's cache key, so a dependency
    /// installed or upgraded in place never reuses an outcome of the old set.
    pub packages: String,
    /// The pytest requirement the venv was built with: [`PYTEST_REQUIREMENT`], or the
    /// substrate's own from `python_deps`.
    pub pytest: String,
}

impl PythonEnv {
    /// The folders the interpreter reads from: its venv, and the installation the venv
    /// was made from (`pyvenv.cfg`'s `home` folder's parent, and where `bin/python`
    /// resolves to). Never `/`: a confined command reads these and no more of the host.
    pub fn prefixes(&self) -> Vec<PathBuf> {
        let venv = self.interpreter.parent().and_then(Path::parent).map(Path::to_path_buf);
        let home = venv.as_ref().and_then(|v| std::fs::read_to_string(v.join("pyvenv.cfg")).ok()).and_then(|cfg| {
            cfg.lines().find_map(|line| {
                let (key, value) = line.split_once('=')?;
                (key.trim() == "home").then(|| PathBuf::from(value.trim()))
            })
        });
        let resolved = std::fs::canonicalize(&self.interpreter).ok();
        let mut prefixes: Vec<PathBuf> = [venv, home.as_deref().and_then(Path::parent).map(Path::to_path_buf)]
            .into_iter()
            .chain([resolved.as_deref().and_then(Path::parent).and_then(Path::parent).map(Path::to_path_buf)])
            .flatten()
            .filter(|p| p.parent().is_some())
            .collect();
        prefixes.sort();
        prefixes.dedup();
        prefixes
    }
}

/// Finds the base interpreter: `$MERGEFORGE_PYTHON`, else `python3` on PATH.
pub(crate) fn base_interpreter() -> String {
    std::env::var("MERGEFORGE_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// Returns a venv of the [`base_interpreter`] with pytest and `deps`, building it under
/// `cache_dir` if needed.
pub fn ensure_venv(cache_dir: &Path, deps: &[String]) -> Result<PythonEnv> {
    ensure_venv_from(cache_dir, None, deps)
}

/// Returns a venv of `python` (an interpreter command such as `python3.8`; default the
/// [`base_interpreter`]) with pytest and `deps`, building it under `cache_dir` if needed.
/// A requirement in `deps` naming pytest (`pytest==7.0.1`) replaces the default pin
/// [`PYTEST_REQUIREMENT`]: a project's older commits may need an older pytest.
pub(crate) fn ensure_venv_from(cache_dir: &Path, python: Option<&str>, deps: &[String]) -> Result<PythonEnv> {
    ensure_venv_with(cache_dir, python, deps, None)
}

/// [`ensure_venv_from`] for a lock (`pins`, every distribution `name==version`): uv
/// installs exactly those (`--no-deps`), in a second where pip takes ten.
pub(crate) fn ensure_locked_venv(cache_dir: &Path, python: &str, pins: &[String], uv: &Path) -> Result<PythonEnv> {
    ensure_venv_with(cache_dir, Some(python), pins, Some(uv))
}

fn ensure_venv_with(cache_dir: &Path, python: Option<&str>, deps: &[String], uv: Option<&Path>) -> Result<PythonEnv> {
    let base = python.map_or_else(base_interpreter, str::to_string);
    let version = interpreter_version(Path::new(&base)).with_context(|| match python {
        Some(_) => format!("python interpreter `{base}` (the substrate's `python`) not usable: install it or change `python` in substrate.toml"),
        None => format!("python interpreter `{base}` not usable: install python3 or set MERGEFORGE_PYTHON"),
    })?;
    let requirements = requirements(deps);
    let key = sha256_hex(format!("{version}\n{}", requirements.join("\n")).as_bytes());
    let venvs = cache_dir.join("venvs");
    let target = venvs.join(&key[..16]);
    let ready = |target: &Path| PythonEnv {
        interpreter: target.join("bin").join("python"),
        version: version.clone(),
        packages: installed_packages(target),
        pytest: requirements[0].clone(),
    };
    if target.join(".ready").exists() {
        return Ok(ready(&target));
    }
    std::fs::create_dir_all(&venvs).with_context(|| format!("creating venv cache {}", venvs.display()))?;
    let staging = tempfile::Builder::new()
        .prefix(".building-")
        .tempdir_in(&venvs)
        .context("creating a venv staging directory")?;
    // Build at the final path's name inside staging, then move: venv scripts record paths,
    // but `bin/python -m ...` (the only way we call it) works after a rename.
    let building = staging.path().join("venv");
    run_checked(Command::new(&base).args(["-m", "venv"]).arg(&building), &format!("{base} -m venv"))?;
    let pip = building.join("bin").join("python");
    match uv {
        Some(uv) => install_locked(uv, &pip, &requirements)?,
        None => install(&pip, &requirements)?,
    }
    std::fs::write(building.join(".ready"), requirements.join("\n"))?;
    match std::fs::rename(&building, &target) {
        Ok(()) => {}
        // Another process finished the same venv first: use theirs.
        Err(_) if target.join(".ready").exists() => {}
        Err(err) => return Err(err).with_context(|| format!("moving venv to {}", target.display())),
    }
    Ok(ready(&target))
}

/// Installs `requirements` with the venv's pip. When the whole set fails (a
/// dependency without a wheel that does not build here, say), each one is installed
/// alone and those that fail are left out with a warning; pytest (the first) must install.
fn install(python: &Path, requirements: &[String]) -> Result<()> {
    let pip = |items: &[String]| {
        let mut command = Command::new(python);
        command.args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check"]).args(items);
        run_checked(&mut command, &format!("pip install {}", items.join(" ")))
    };
    let Err(err) = pip(requirements) else { return Ok(()) };
    if requirements.len() == 1 {
        return Err(err);
    }
    log::warn!("{err:#}; installing the requirements one by one");
    pip(&requirements[..1])?;
    for requirement in &requirements[1..] {
        if let Err(err) = pip(std::slice::from_ref(requirement)) {
            log::warn!("{err:#}; left out of the venv");
        }
    }
    Ok(())
}

/// Installs the pinned `requirements` into the venv of `python` with `uv`, without
/// resolving again (they are a whole lock).
fn install_locked(uv: &Path, python: &Path, requirements: &[String]) -> Result<()> {
    let mut command = Command::new(uv);
    command.args(["pip", "install", "--quiet", "--no-config", "--no-deps", "--python"]).arg(python).args(requirements);
    run_checked(&mut command, &format!("uv pip install {}", requirements.join(" ")))
}

/// What a venv with `deps` installs: pytest first (the one `deps` names, else
/// [`PYTEST_REQUIREMENT`]), then the other requirements sorted.
fn requirements(deps: &[String]) -> Vec<String> {
    let (pytest, mut others): (Vec<String>, Vec<String>) =
        deps.iter().cloned().partition(|d| distribution_name(d) == "pytest");
    others.sort();
    let pytest = pytest.into_iter().min().unwrap_or_else(|| PYTEST_REQUIREMENT.to_string());
    std::iter::once(pytest).chain(others).collect()
}

/// The distribution a pip requirement names, lower-cased (`pytest` of `Pytest>=7,<8`).
fn distribution_name(requirement: &str) -> String {
    let end =
        requirement.find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c))).unwrap_or(requirement.len());
    requirement[..end].to_ascii_lowercase().replace('_', "-")
}

/// The version a pytest requirement pins (`8.4.2` of `pytest==8.4.2`), else the
/// requirement itself (`pytest<8`).
pub(crate) fn pinned_version(requirement: &str) -> &str {
    requirement.split_once("==").map_or(requirement, |(_, version)| version.trim())
}

/// A hash of the distributions installed in the venv at `venv`: the sorted names of its
/// `site-packages/*.dist-info` and `*.egg-info` entries (pip names them
/// `<name>-<version>`), read once per venv and process.
pub fn installed_packages(venv: &Path) -> String {
    static READ: Mutex<BTreeMap<PathBuf, String>> = Mutex::new(BTreeMap::new());
    let mut read = READ.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    read.entry(venv.to_path_buf()).or_insert_with(|| sha256_hex(package_list(venv).join("\n").as_bytes())).clone()
}

/// The `<name>-<version>.dist-info` (or `.egg-info`) entries of every
/// `lib/<python>/site-packages` folder of `venv`, sorted.
pub fn package_list(venv: &Path) -> Vec<String> {
    let mut packages = Vec::new();
    for lib in std::fs::read_dir(venv.join("lib")).into_iter().flatten().flatten() {
        let site = lib.path().join("site-packages");
        for entry in std::fs::read_dir(&site).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".dist-info") || name.ends_with(".egg-info") {
                packages.push(name);
            }
        }
    }
    packages.sort();
    packages
}

fn interpreter_version(python: &Path) -> Result<String> {
    let output = Command::new(python).arg("--version").output()?;
    if !output.status.success() {
        bail!("`{} --version` failed", python.display());
    }
    let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
    Ok(if text.is_empty() { String::from_utf8_lossy(&output.stderr).trim().to_string() } else { text })
}

fn run_checked(command: &mut Command, what: &str) -> Result<()> {
    let output = command.output().with_context(|| format!("running {what}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().last().unwrap_or("").trim();
        bail!("{what} failed: {last}");
    }
    Ok(())
}

/// A directory for caches shared across runs: `$MERGEFORGE_CACHE`, else
/// `$XDG_CACHE_HOME/mergeforge`, else `~/.cache/mergeforge`.
pub fn user_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("MERGEFORGE_CACHE") {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(dir).join("mergeforge");
    }
    let home = std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into());
    PathBuf::from(home).join(".cache").join("mergeforge")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_substrate_pytest_replaces_the_pin_and_comes_first() {
        assert_eq!(requirements(&strings(&["six", "attrs"])), strings(&[PYTEST_REQUIREMENT, "attrs", "six"]));
        assert_eq!(requirements(&strings(&["six", "pytest==7.0.1"])), strings(&["pytest==7.0.1", "six"]));
        assert_eq!(requirements(&strings(&["PyTest<8", "pytest-mock"])), strings(&["PyTest<8", "pytest-mock"]));
        assert_eq!(pinned_version("pytest==7.0.1"), "7.0.1");
        assert_eq!(pinned_version("pytest<8"), "pytest<8");
        assert_eq!(pytest_version(), "8.4.2");
    }
}
