//! Programs mergeforge runs as processes, pinned and installed from PyPI on first need:
//! ruff (the judgement's static findings) and uv (resolving a commit's dependencies as
//! of its date). Each is a self-contained binary in a wheel, so it does not depend on
//! any substrate's interpreter.
//!
//! Where a binary comes from: the variable the tool names ([`PipTool::env_var`]), else the
//! pinned release in mergeforge's user cache, installed there with `python3 -m pip install
//! --no-deps --target`. Never one on PATH: another version answers otherwise.
//!
//! Layout: `<cache>/tools/<name>-<version>/bin/<name>`, with `<name>-<version>.lock` beside
//! it. pip installs into a temporary sibling (`.<name>-<version>-<owner>-XXXX/root`, see
//! [`crate::leftovers`]) renamed into place once it holds the binary; an exclusive lock
//! makes concurrent runs install once.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context, Result};

use crate::resolve::mergiraf::install::is_executable;

/// A program installed from its PyPI wheel.
#[derive(Debug)]
pub(crate) struct PipTool {
    /// The distribution and its binary (`ruff`).
    pub(crate) name: &'static str,
    /// The pinned release.
    pub(crate) version: &'static str,
    /// The variable naming a binary to use instead (`MERGEFORGE_RUFF`).
    pub(crate) env_var: &'static str,
}

/// The linter of the judgement's findings (keep `deploy/Dockerfile`'s `RUFF_VERSION` equal).
pub(crate) const RUFF: PipTool = PipTool { name: "ruff", version: "0.17.6", env_var: "MERGEFORGE_RUFF" };

/// The resolver of a history commit's dependencies as of its date (`uv pip compile
/// --exclude-newer`).
pub(crate) const UV: PipTool = PipTool { name: "uv", version: "0.13.9", env_var: "MERGEFORGE_UV" };

impl PipTool {
    /// What to do when the tool cannot be had, appended to install errors.
    fn advice(&self) -> String {
        format!(
            "install it by hand (`pip install --target DIR {}=={}`) and name DIR/bin/{} in {}",
            self.name, self.version, self.name, self.env_var
        )
    }

    /// The binary to run, found or installed once per process.
    pub(crate) fn binary(&self) -> Result<PathBuf> {
        static FOUND: Mutex<BTreeMap<&str, Result<PathBuf, String>>> = Mutex::new(BTreeMap::new());
        let mut found = FOUND.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        found
            .entry(self.name)
            .or_insert_with(|| self.locate().map_err(|e| format!("{e:#}")))
            .clone()
            .map_err(|e| anyhow!(e))
    }

    /// The variable's binary, else the cached install, else the pinned release installed now.
    fn locate(&self) -> Result<PathBuf> {
        if let Some(path) = std::env::var_os(self.env_var) {
            let path = PathBuf::from(path);
            if !is_executable(&path) {
                bail!(
                    "{}={}: not an executable file; name a {} binary ({} {}) or unset it",
                    self.env_var,
                    path.display(),
                    self.name,
                    self.name,
                    self.version
                );
            }
            return Ok(path);
        }
        let cache = crate::pytest::venv::user_cache_dir();
        match self.installed(&cache) {
            Some(binary) => Ok(binary),
            None => self.install(&crate::pytest::venv::base_interpreter(), &cache),
        }
    }

    /// `<cache>/tools/<name>-<version>`: pip's `--target` of the pinned install.
    pub(crate) fn install_root(&self, cache: &Path) -> PathBuf {
        cache.join("tools").join(format!("{}-{}", self.name, self.version))
    }

    /// The cached install's binary, when it is there.
    pub(crate) fn installed(&self, cache: &Path) -> Option<PathBuf> {
        let binary = self.install_root(cache).join("bin").join(self.name);
        is_executable(&binary).then_some(binary)
    }

    /// Installs the pinned release under `cache` with `python -m pip` unless it is there
    /// already, and returns its binary.
    pub(crate) fn install(&self, python: &str, cache: &Path) -> Result<PathBuf> {
        let (name, version) = (self.name, self.version);
        let tools = cache.join("tools");
        std::fs::create_dir_all(&tools).with_context(|| format!("creating {}", tools.display()))?;
        let lock_path = tools.join(format!("{name}-{version}.lock"));
        let lock = File::create(&lock_path).with_context(|| format!("creating {}", lock_path.display()))?;
        lock.lock().with_context(|| format!("locking {}", lock_path.display()))?;
        if let Some(binary) = self.installed(cache) {
            return Ok(binary);
        }
        let prefix = format!(".{name}-{version}-");
        crate::leftovers::sweep(&tools, &prefix);
        let root = self.install_root(cache);
        if root.exists() {
            // A folder without a binary is no install: make room.
            std::fs::remove_dir_all(&root).with_context(|| format!("removing {}", root.display()))?;
        }
        log::info!("installing {name} {version} with {python} -m pip into {}, once per machine", root.display());
        let staging = tempfile::Builder::new()
            .prefix(&format!("{prefix}{}-", crate::leftovers::owner_tag()))
            .tempdir_in(&tools)
            .context("creating an install folder")?;
        let building = staging.path().join("root");
        let requirement = format!("{name}=={version}");
        let output = Command::new(python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--target"])
            .arg(&building)
            .arg(&requirement)
            .stdin(Stdio::null())
            .output();
        let advice = self.advice();
        let output = match output {
            Ok(output) => output,
            Err(e) => bail!("cannot run `{python} -m pip` to install {name} {version}: {e}; {advice}"),
        };
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let cause = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
            bail!("`{python} -m pip install {requirement}` failed ({}): {cause}; {advice}", output.status);
        }
        if !is_executable(&building.join("bin").join(name)) {
            bail!("`{python} -m pip install {requirement}` wrote no bin/{name}; {advice}");
        }
        std::fs::rename(&building, &root).with_context(|| format!("moving the install to {}", root.display()))?;
        self.installed(cache).with_context(|| format!("{}: no bin/{name} after the install", root.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `python` stand-in: a shell script with `body`, which sees pip's `--target` as
    /// `$target` and counts its runs in `<dir>/runs`.
    fn fake_python(dir: &Path, body: &str) -> String {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("python");
        let script = format!(
            "#!/bin/sh\nset -e\necho run >> '{}'\nwhile [ \"$1\" != --target ]; do shift; done\ntarget=\"$2\"\n{body}\n",
            dir.join("runs").display()
        );
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    #[test]
    fn installs_once_into_a_temporary_folder_moved_into_place() {
        for tool in [RUFF, UV] {
            let work = tempfile::tempdir().unwrap();
            let name = tool.name;
            let python = fake_python(
                work.path(),
                &format!("mkdir -p \"$target/bin\"\nprintf '#!/bin/sh\\necho {name}\\n' > \"$target/bin/{name}\"\nchmod +x \"$target/bin/{name}\""),
            );
            let cache = work.path().join("cache");
            let binary = tool.install(&python, &cache).unwrap();
            assert_eq!(binary, tool.install_root(&cache).join("bin").join(name));
            assert_eq!(tool.install(&python, &cache).unwrap(), binary);
            assert_eq!(std::fs::read_to_string(work.path().join("runs")).unwrap().lines().count(), 1, "installed once");
            let leftovers: Vec<_> = std::fs::read_dir(cache.join("tools"))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(&format!(".{name}-")))
                .collect();
            assert!(leftovers.is_empty(), "{leftovers:?}");
        }
    }

    #[test]
    fn a_failed_install_leaves_nothing_installed_and_says_what_to_do() {
        let work = tempfile::tempdir().unwrap();
        let python = fake_python(work.path(), "echo 'ERROR: No matching distribution found for uv' >&2\nexit 1");
        let cache = work.path().join("cache");
        let err = format!("{:#}", UV.install(&python, &cache).unwrap_err());
        assert!(!err.contains('\n'), "one line: {err}");
        assert!(err.contains("No matching distribution") && err.contains(UV.env_var), "{err}");
        assert_eq!(UV.installed(&cache), None);
        assert!(!UV.install_root(&cache).exists());
    }

    #[test]
    fn the_docker_image_installs_the_pinned_ruff() {
        let dockerfile = include_str!("../deploy/Dockerfile");
        assert!(dockerfile.contains(&format!("RUFF_VERSION={}", RUFF.version)), "deploy/Dockerfile: RUFF_VERSION");
    }
}
