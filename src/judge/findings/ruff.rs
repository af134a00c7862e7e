//! The pinned ruff ([`PINNED`]) and its findings: [`RULES`] on the tree's and gold's
//! versions of the changed files, one run for both, the tree's excess kept.
//!
//! Where the binary comes from: `$MERGEFORGE_RUFF` (a ruff executable; the Docker image
//! sets it), else the pinned release in mergeforge's user cache, installed there on
//! first need with `python3 -m pip install --target` (pip only downloads the release's
//! wheel: ruff is a self-contained program, so it does not depend on any substrate's
//! interpreter). Never a `ruff` on PATH: another version finds other things.
//!
//! Layout: `<cache>/tools/ruff-<PINNED>/bin/ruff`, with `ruff-<PINNED>.lock` beside it.
//! pip installs into a temporary sibling (`.ruff-<PINNED>-<owner>-XXXX/root`, see
//! [`crate::leftovers`]) renamed into place once it holds the binary; an exclusive lock
//! makes concurrent runs install once.
//!
//! Ruff runs `--isolated` (no configuration file of the tree counts), `--ignore-noqa`
//! (no comment silences a finding) and `--no-cache`, on copies of the files in a
//! private folder. It reads the files and never runs them.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use anyhow::{anyhow, bail, Context, Result};

use super::finding::{subtract, Finding};
use crate::resolve::mergiraf::install::is_executable;

/// The ruff release the findings are pinned to (keep `deploy/Dockerfile`'s
/// `RUFF_VERSION` equal).
pub(crate) const PINNED: &str = "0.17.6";

/// Environment variable naming a ruff binary to use instead of the cached install.
pub(crate) const ENV_VAR: &str = "MERGEFORGE_RUFF";

/// The rules checked: redefinition, repeated dictionary keys (literal, variable),
/// undefined name, unused import, unused local.
pub(crate) const RULES: [&str; 6] = ["F811", "F601", "F602", "F821", "F401", "F841"];

/// What to do when ruff cannot be had, appended to install errors.
const ADVICE: &str =
    "install it by hand (`pip install --target DIR ruff==VERSION`) and name DIR/bin/ruff in MERGEFORGE_RUFF";

/// A file's two versions.
pub(crate) struct Versions<'a> {
    pub(crate) path: &'a str,
    pub(crate) tree: &'a [u8],
    /// `None` when gold has no such file.
    pub(crate) gold: Option<&'a [u8]>,
}

/// The findings of [`RULES`] the tree's versions of `files` have and gold's have not.
pub(crate) fn findings(files: &[Versions<'_>]) -> Result<Vec<Finding>> {
    let files: Vec<_> = files.iter().filter(|file| is_relative(file.path)).collect();
    if files.is_empty() {
        return Ok(Vec::new());
    }
    let binary = binary()?;
    let work = tempfile::Builder::new().prefix("mergeforge-ruff-").tempdir().context("creating a folder for ruff")?;
    let root = work.path().canonicalize().context("resolving ruff's folder")?;
    let mut arguments = Vec::new();
    for file in &files {
        for (side, bytes) in [("tree", Some(file.tree)), ("gold", file.gold)] {
            let Some(bytes) = bytes else { continue };
            let target = root.join(side).join(file.path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
            }
            std::fs::write(&target, bytes).with_context(|| format!("writing {}", target.display()))?;
            arguments.push(target);
        }
    }
    let mut by_side: BTreeMap<&str, Vec<Finding>> = BTreeMap::new();
    for (side, finding) in run(&binary, &root, &arguments)? {
        by_side.entry(side).or_default().push(finding);
    }
    Ok(subtract(by_side.remove("tree").unwrap_or_default(), by_side.remove("gold").unwrap_or_default()))
}

/// Whether a snapshot path stays inside the folder it is written under.
fn is_relative(path: &str) -> bool {
    Path::new(path).components().all(|c| matches!(c, Component::Normal(_)))
}

/// One ruff run over `files` (under `root`'s `tree/` and `gold/`): each finding with the
/// side it is on.
fn run(binary: &Path, root: &Path, files: &[PathBuf]) -> Result<Vec<(&'static str, Finding)>> {
    let output = Command::new(binary)
        .args(["check", "--isolated", "--ignore-noqa", "--no-cache", "--exit-zero", "--output-format", "json"])
        .arg("--select")
        .arg(RULES.join(","))
        .args(files)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("running {}", binary.display()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        bail!("{} check failed ({}): {}", binary.display(), output.status, stderr.lines().next().unwrap_or(""));
    }
    let diagnostics: Vec<Diagnostic> = serde_json::from_slice(&output.stdout)
        .with_context(|| format!("reading the JSON of {} check", binary.display()))?;
    Ok(diagnostics.into_iter().filter_map(|d| d.finding(root)).collect())
}

/// One diagnostic of `ruff check --output-format json` (the fields read).
#[derive(serde::Deserialize)]
struct Diagnostic {
    /// The rule's code; `null` for a syntax error.
    code: Option<String>,
    filename: PathBuf,
    location: Location,
    message: String,
}

#[derive(serde::Deserialize)]
struct Location {
    row: usize,
}

impl Diagnostic {
    /// The finding, with its side (`tree` or `gold`), if it is one of [`RULES`] on a
    /// file under `root`.
    fn finding(self, root: &Path) -> Option<(&'static str, Finding)> {
        let code = self.code.filter(|code| RULES.contains(&code.as_str()))?;
        let relative = self.filename.strip_prefix(root).ok()?;
        let side = match relative.components().next()? {
            Component::Normal(side) if side == "tree" => "tree",
            Component::Normal(side) if side == "gold" => "gold",
            _ => return None,
        };
        let path = relative.strip_prefix(side).ok()?.to_string_lossy().replace('\\', "/");
        let line = self.location.row;
        let finding =
            Finding { name: quoted_name(&self.message).to_string(), message: self.message, path, rule: code, line };
        Some((side, finding))
    }
}

/// The name a ruff message is about: its first back-quoted part (`` `os` imported but
/// unused ``, `` Redefinition of unused `f` from line 3 ``), else the whole message.
fn quoted_name(message: &str) -> &str {
    message.split('`').nth(1).filter(|_| message.matches('`').count() >= 2).unwrap_or(message)
}

/// The ruff to run, found or installed once per process.
fn binary() -> Result<PathBuf> {
    static BINARY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BINARY.get_or_init(|| locate().map_err(|e| format!("{e:#}"))).clone().map_err(|e| anyhow!(e))
}

/// `$MERGEFORGE_RUFF`, else the cached install, else the pinned release installed now.
fn locate() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os(ENV_VAR) {
        let path = PathBuf::from(path);
        if !is_executable(&path) {
            bail!(
                "{ENV_VAR}={}: not an executable file; name a ruff binary (ruff {PINNED}) or unset it",
                path.display()
            );
        }
        return Ok(path);
    }
    let cache = crate::pytest::venv::user_cache_dir();
    match installed(&cache) {
        Some(binary) => Ok(binary),
        None => install(&crate::pytest::venv::base_interpreter(), &cache),
    }
}

/// `<cache>/tools/ruff-<PINNED>`: pip's `--target` of the pinned install.
pub(crate) fn install_root(cache: &Path) -> PathBuf {
    cache.join("tools").join(format!("ruff-{PINNED}"))
}

/// The cached install's binary, when it is there.
pub(crate) fn installed(cache: &Path) -> Option<PathBuf> {
    let binary = install_root(cache).join("bin").join("ruff");
    is_executable(&binary).then_some(binary)
}

/// Installs the pinned ruff under `cache` with `python -m pip` unless it is there
/// already, and returns its binary.
pub(crate) fn install(python: &str, cache: &Path) -> Result<PathBuf> {
    let tools = cache.join("tools");
    std::fs::create_dir_all(&tools).with_context(|| format!("creating {}", tools.display()))?;
    let lock_path = tools.join(format!("ruff-{PINNED}.lock"));
    let lock = File::create(&lock_path).with_context(|| format!("creating {}", lock_path.display()))?;
    lock.lock().with_context(|| format!("locking {}", lock_path.display()))?;
    if let Some(binary) = installed(cache) {
        return Ok(binary);
    }
    let prefix = format!(".ruff-{PINNED}-");
    crate::leftovers::sweep(&tools, &prefix);
    let root = install_root(cache);
    if root.exists() {
        // A folder without a binary is no install: make room.
        std::fs::remove_dir_all(&root).with_context(|| format!("removing {}", root.display()))?;
    }
    log::info!("installing ruff {PINNED} with {python} -m pip into {}, once per machine", root.display());
    let staging = tempfile::Builder::new()
        .prefix(&format!("{prefix}{}-", crate::leftovers::owner_tag()))
        .tempdir_in(&tools)
        .context("creating an install folder")?;
    let building = staging.path().join("root");
    let requirement = format!("ruff=={PINNED}");
    let output = Command::new(python)
        .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-deps", "--target"])
        .arg(&building)
        .arg(&requirement)
        .stdin(Stdio::null())
        .output();
    let output = match output {
        Ok(output) => output,
        Err(e) => bail!("cannot run `{python} -m pip` to install ruff {PINNED}: {e}; {ADVICE}"),
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let cause = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
        bail!("`{python} -m pip install {requirement}` failed ({}): {cause}; {ADVICE}", output.status);
    }
    if !is_executable(&building.join("bin").join("ruff")) {
        bail!("`{python} -m pip install {requirement}` wrote no bin/ruff; {ADVICE}");
    }
    std::fs::rename(&building, &root).with_context(|| format!("moving the install to {}", root.display()))?;
    installed(cache).with_context(|| format!("{}: no bin/ruff after the install", root.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_first_quoted_part_of_the_message() {
        assert_eq!(quoted_name("`os` imported but unused"), "os");
        assert_eq!(quoted_name("Redefinition of unused `f` from line 5: `f` redefined here"), "f");
        assert_eq!(quoted_name("Dictionary key literal `\"k\"` repeated"), "\"k\"");
        assert_eq!(quoted_name("no quotes"), "no quotes");
    }

    #[test]
    fn paths_outside_the_folder_are_not_written() {
        assert!(is_relative("pkg/mod.py"));
        assert!(!is_relative("../escape.py") && !is_relative("/etc/x.py") && !is_relative("a/../../b.py"));
    }

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
        let work = tempfile::tempdir().unwrap();
        let python = fake_python(
            work.path(),
            "mkdir -p \"$target/bin\"\nprintf '#!/bin/sh\\necho ruff\\n' > \"$target/bin/ruff\"\nchmod +x \"$target/bin/ruff\"",
        );
        let cache = work.path().join("cache");
        let binary = install(&python, &cache).unwrap();
        assert_eq!(binary, install_root(&cache).join("bin/ruff"));
        assert_eq!(install(&python, &cache).unwrap(), binary);
        assert_eq!(std::fs::read_to_string(work.path().join("runs")).unwrap().lines().count(), 1, "installed once");
        let leftovers: Vec<_> = std::fs::read_dir(cache.join("tools"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".ruff-"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_failed_install_leaves_nothing_installed_and_says_what_to_do() {
        let work = tempfile::tempdir().unwrap();
        let python = fake_python(work.path(), "echo 'ERROR: No matching distribution found for ruff' >&2\nexit 1");
        let cache = work.path().join("cache");
        let err = format!("{:#}", install(&python, &cache).unwrap_err());
        assert!(!err.contains('\n'), "one line: {err}");
        assert!(err.contains("No matching distribution") && err.contains(ENV_VAR), "{err}");
        assert_eq!(installed(&cache), None);
        assert!(!install_root(&cache).exists());
    }

    #[test]
    fn the_docker_image_installs_the_pinned_release() {
        let dockerfile = include_str!("../../../deploy/Dockerfile");
        assert!(dockerfile.contains(&format!("RUFF_VERSION={PINNED}")), "deploy/Dockerfile: RUFF_VERSION");
    }
}
