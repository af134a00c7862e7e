//! `mergiraf`: the structured merge tool, run as a separate program (GPL-3.0, not linked
//! into mergeforge).
//!
//! Where the binary comes from ([`Binary`]): `$MERGEFORGE_MERGIRAF` when that names a
//! file, else `mergiraf` on PATH, else the pinned version [`install`] put in mergeforge's
//! user cache. The commands that level tasks call [`prepare`] first, which
//! installs that pinned version when none of these exists (or leaves mergiraf out on
//! purpose: `--no-mergiraf`, or `MERGEFORGE_MERGIRAF=off`); a library caller that does
//! not gets whatever is found, and a rung without a binary is recorded as
//! `{"available": false}` (the manifest then says the ladder is incomplete).
//!
//! Each conflicted file is split into its three versions ([`super::resolver::versions`])
//! and merged with `mergiraf merge BASE OURS THEIRS --path-name NAME --output OUT` in a
//! private directory; a merge that still has conflicts (exit status 1) leaves the file
//! conflicted. Any other exit, a signal, a run longer than a minute or an output that is
//! not a clean UTF-8 file is a [`ResolverFailure`]: the task's level is then unknown.

pub mod install;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use install::is_executable;

use super::resolver::{FileResolution, RecordKey, Resolver, ResolverFailure, Rung};
use crate::sandbox::{run_in_dir, Limits};

/// Environment variable naming the binary, or `off`.
pub const ENV_VAR: &str = "MERGEFORGE_MERGIRAF";

/// Wall-clock limit for one file.
const TIMEOUT: Duration = Duration::from_secs(60);

/// Which mergiraf the ladder runs, or why it runs none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Binary {
    /// This executable.
    Found(PathBuf),
    /// Left out on purpose: `--no-mergiraf`, or `MERGEFORGE_MERGIRAF=off`.
    Skipped,
    /// None found: not in `$MERGEFORGE_MERGIRAF`, on PATH or in the cache, and nothing
    /// installed one.
    NotFound,
}

impl Binary {
    /// The executable, when there is one.
    pub(crate) fn path(&self) -> Option<&Path> {
        match self {
            Binary::Found(path) => Some(path),
            Binary::Skipped | Binary::NotFound => None,
        }
    }
}

/// The mergiraf resolver. [`FROM_PATH`] finds its binary on first use ([`locate`]),
/// unless a command chose it before ([`Mergiraf::choose`]).
pub struct Mergiraf {
    binary: OnceLock<Binary>,
}

/// The resolver listed in [`crate::resolve::ALL`].
pub static FROM_PATH: Mergiraf = Mergiraf { binary: OnceLock::new() };

impl Mergiraf {

    /// Which binary this resolver runs (found on first use when not chosen before).
    pub fn choice(&self) -> &Binary {
        self.binary.get_or_init(locate)
    }

    /// Fixes which binary this resolver runs; an error if it already runs another one
    /// (a command chooses once, before anything resolves).
    pub(crate) fn choose(&self, binary: Binary) -> anyhow::Result<()> {
        let chosen = self.binary.get_or_init(|| binary.clone());
        if *chosen != binary {
            anyhow::bail!("internal error: the mergiraf rung already runs {chosen:?}, not {binary:?}");
        }
        Ok(())
    }

    /// The binary this resolver runs, if there is one.
    pub(crate) fn binary(&self) -> Option<&Path> {
        self.choice().path()
    }

    /// What `mergiraf --version` prints (its first line), when a binary is available.
    pub(crate) fn version(&self) -> Option<String> {
        let output = std::process::Command::new(self.binary()?).arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&output.stdout);
        let line = text.lines().next()?.trim();
        (output.status.success() && !line.is_empty()).then(|| line.to_string())
    }

    /// Merges the three versions `conflicted` stands for: `Ok(Some)` clean, `Ok(None)`
    /// when mergiraf leaves conflicts (exit status 1), `Err` when it failed to run.
    fn merge(&self, binary: &Path, path: &str, conflicted: &str) -> Result<Option<String>, String> {
        let Some(versions) = super::resolver::versions(conflicted) else { return Ok(Some(conflicted.to_string())) };
        let dir = tempfile::Builder::new()
            .prefix("mergeforge-mergiraf-")
            .tempdir()
            .map_err(|e| format!("creating a temporary folder: {e}"))?;
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).map_err(|e| format!("creating {}: {e}", work.display()))?;
        let name = Path::new(path).file_name().map_or_else(|| "file.py".into(), |n| n.to_string_lossy().into_owned());
        let extension = Path::new(&name).extension().map_or(String::new(), |e| format!(".{}", e.to_string_lossy()));
        for (stem, text) in [("base", &versions.base), ("ours", &versions.ours), ("theirs", &versions.theirs)] {
            std::fs::write(work.join(format!("{stem}{extension}")), text)
                .map_err(|e| format!("writing {stem}: {e}"))?;
        }
        let output = format!("merged{extension}");
        let argv: Vec<String> = vec![
            binary.to_string_lossy().into_owned(),
            "merge".into(),
            format!("base{extension}"),
            format!("ours{extension}"),
            format!("theirs{extension}"),
            "--path-name".into(),
            name,
            "--output".into(),
            output.clone(),
        ];
        let limits = Limits { output_cap_bytes: 64 << 10, ..Limits::for_tests(TIMEOUT) };
        let run = run_in_dir(&work, dir.path(), &argv, &BTreeMap::new(), &limits).map_err(|e| format!("{e:#}"))?;
        if run.timed_out {
            return Err(format!("no answer within {} s", TIMEOUT.as_secs()));
        }
        match run.exit_code {
            Some(0) => {}
            Some(1) => return Ok(None),
            Some(code) => return Err(format!("exit status {code}: {}", last_line(&run.output))),
            None => return Err(format!("killed by a signal: {}", last_line(&run.output))),
        }
        let merged = std::fs::read(work.join(&output)).map_err(|e| format!("no merged file: {e}"))?;
        let merged = String::from_utf8(merged).map_err(|_| "the merged file is not UTF-8".to_string())?;
        if super::resolver::segments(&merged).iter().any(|s| s.hunk.is_some()) {
            return Err("exit status 0 but the merged file has conflict markers".to_string());
        }
        Ok(Some(merged))
    }
}

/// The last non-empty line of a process's output, for error messages.
fn last_line(output: &str) -> &str {
    output.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("(no output)").trim()
}

impl Resolver for Mergiraf {
    fn name(&self) -> &'static str {
        "mergiraf"
    }
    fn description(&self) -> &'static str {
        "The mergiraf structured merge tool run on each conflicted file's three versions, or `{\"available\": false}` when no mergiraf binary was found."
    }
    fn rung(&self) -> Rung {
        Rung::Medium
    }
    fn record_key(&self) -> RecordKey {
        RecordKey::Own("mergiraf")
    }
    fn agent(&self) -> Option<&'static str> {
        None
    }
    fn available(&self) -> bool {
        self.binary().is_some()
    }

    fn resolve_file(&self, path: &str, conflicted: &str) -> Result<FileResolution, ResolverFailure> {
        let Some(binary) = self.binary() else {
            return Ok(FileResolution::unresolved(conflicted));
        };
        match self.merge(binary, path, conflicted) {
            Ok(Some(text)) => Ok(FileResolution { text, unresolved: 0 }),
            Ok(None) => Ok(FileResolution::unresolved(conflicted)),
            Err(reason) => Err(ResolverFailure { resolver: self.name(), path: path.to_string(), reason }),
        }
    }
}

/// Chooses the binary of [`FROM_PATH`] for a command that levels tasks and returns it:
/// none when `skip` (`--no-mergiraf`) or `MERGEFORGE_MERGIRAF=off`; the file
/// `$MERGEFORGE_MERGIRAF` names (an error when it is not executable); `mergiraf` on
/// PATH; the cached install; else the pinned release installed now (`progress`: draw a
/// spinner while cargo builds it).
pub(crate) fn prepare(skip: bool, progress: bool) -> anyhow::Result<Binary> {
    let binary = find_or_install(skip, progress)?;
    FROM_PATH.choose(binary.clone())?;
    Ok(binary)
}

fn find_or_install(skip: bool, progress: bool) -> anyhow::Result<Binary> {
    if skip {
        return Ok(Binary::Skipped);
    }
    match env_choice() {
        EnvChoice::Off => Ok(Binary::Skipped),
        EnvChoice::Path(path) if is_executable(&path) => Ok(Binary::Found(path)),
        EnvChoice::Path(path) => anyhow::bail!(
            "{ENV_VAR}={}: not an executable file; name a mergiraf binary, unset it, or pass --no-mergiraf",
            path.display()
        ),
        EnvChoice::Unset => {
            if let Some(path) = on_path() {
                return Ok(Binary::Found(path));
            }
            let cache = crate::pytest::venv::user_cache_dir();
            match install::installed(&cache) {
                Some(path) => Ok(Binary::Found(path)),
                None => install::install(Path::new("cargo"), &cache, progress).map(Binary::Found),
            }
        }
    }
}

/// What `MERGEFORGE_MERGIRAF` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum EnvChoice {
    /// Unset: look on PATH, then in the cache.
    Unset,
    /// `off`, `0` or empty: no mergiraf.
    Off,
    /// A path to run.
    Path(PathBuf),
}

pub(crate) fn env_choice() -> EnvChoice {
    match std::env::var_os(ENV_VAR) {
        None => EnvChoice::Unset,
        Some(value) if value == "off" || value == "0" || value.is_empty() => EnvChoice::Off,
        Some(value) => EnvChoice::Path(PathBuf::from(value)),
    }
}

/// The binary a library caller gets without choosing: `$MERGEFORGE_MERGIRAF`, else
/// `mergiraf` in a PATH directory, else the cached install; never installs.
fn locate() -> Binary {
    match env_choice() {
        EnvChoice::Off => Binary::Skipped,
        EnvChoice::Path(path) if is_executable(&path) => Binary::Found(path),
        EnvChoice::Path(path) => {
            log::warn!(
                "{ENV_VAR}={}: not an executable file; the mergiraf baseline is unavailable",
                path.display()
            );
            Binary::NotFound
        }
        EnvChoice::Unset => on_path()
            .or_else(|| install::installed(&crate::pytest::venv::user_cache_dir()))
            .map_or(Binary::NotFound, Binary::Found),
    }
}

/// `mergiraf` in a PATH directory.
fn on_path() -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths).map(|dir| dir.join("mergiraf")).find(|p| is_executable(p))
}
