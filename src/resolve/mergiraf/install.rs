//! Installing mergiraf: the pinned release ([`PINNED`]) built with `cargo install` into
//! mergeforge's user cache, once per machine (like the Python venv), for
//! [`super::prepare`] when no mergiraf is found.
//!
//! Layout: `<cache>/tools/mergiraf-<PINNED>/bin/mergiraf`, with `mergiraf-<PINNED>.log`
//! (cargo's output of the last install) and `mergiraf-<PINNED>.lock` next to it. cargo
//! installs into a temporary sibling (`.mergiraf-<PINNED>-XXXX/root`, its build folder
//! beside it; named with its owner, see [`crate::leftovers`]) that is renamed into place
//! once it holds the binary, so a failed or interrupted install never leaves a folder
//! that looks installed. An exclusive lock on the lock file makes concurrent runs install
//! once (the others wait, then use it); the holder clears the temporary folders a killed
//! install on this host left.
//!
//! Nothing here is linked to mergiraf (GPL-3.0): cargo builds it as a separate program,
//! which the resolver runs as a process.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

/// The mergiraf release installed when none is found: the newest on crates.io that
/// builds with current stable Rust (keep `deploy/Dockerfile`'s `MERGIRAF_VERSION` equal).
pub const PINNED: &str = "0.20.0";

/// What to do when it fails, appended to every install error.
const ADVICE: &str = "put a mergiraf binary on PATH (or name one in MERGEFORGE_MERGIRAF), or pass --no-mergiraf to level tasks without it";

/// Prefix of an install's temporary folder under `<cache>/tools/`, before its owner tag
/// ([`crate::leftovers`]).
fn staging_prefix() -> String {
    format!(".mergiraf-{PINNED}-")
}

/// `<cache>/tools/mergiraf-<PINNED>`: the `--root` of the pinned install.
pub fn install_root(cache: &Path) -> PathBuf {
    cache.join("tools").join(format!("mergiraf-{PINNED}"))
}

/// The cached install's binary, when it is there.
pub(crate) fn installed(cache: &Path) -> Option<PathBuf> {
    let binary = install_root(cache).join("bin").join("mergiraf");
    is_executable(&binary).then_some(binary)
}

/// Installs the pinned mergiraf under `cache` with `cargo` (a program name looked up
/// on PATH, or a path) unless it is there already, and returns its binary.
pub(crate) fn install(cargo: &Path, cache: &Path, progress: bool) -> Result<PathBuf> {
    let tools = cache.join("tools");
    std::fs::create_dir_all(&tools).with_context(|| format!("creating {}", tools.display()))?;
    let spinner = spinner(progress);
    let lock_path = tools.join(format!("mergiraf-{PINNED}.lock"));
    let _lock = lock(&lock_path, &spinner)?;
    if let Some(binary) = installed(cache) {
        spinner.finish_and_clear();
        return Ok(binary);
    }
    crate::leftovers::sweep(&tools, &staging_prefix());
    let root = install_root(cache);
    if root.exists() {
        // A folder without a binary is no install (emptied by hand): make room.
        std::fs::remove_dir_all(&root).with_context(|| format!("removing {}", root.display()))?;
    }
    let log = tools.join(format!("mergiraf-{PINNED}.log"));
    let started = Instant::now();
    let note = format!(
        "installing mergiraf {PINNED} (GPL-3.0, run as a separate program) with cargo into {}, once per machine; log: {}",
        root.display(),
        log.display()
    );
    if spinner.is_hidden() {
        log::info!("{note}");
    }
    spinner.set_message(note);
    let staging = tempfile::Builder::new()
        .prefix(&format!("{}{}-", staging_prefix(), crate::leftovers::owner_tag()))
        .tempdir_in(&tools)
        .context("creating an install folder")?;
    let building = staging.path().join("root");
    run_cargo(cargo, &building, &staging.path().join("target"), &log)?;
    let binary = building.join("bin").join("mergiraf");
    if !is_executable(&binary) {
        bail!("`cargo install mergiraf --version {PINNED}` wrote no bin/mergiraf (log: {}); {ADVICE}", log.display());
    }
    std::fs::rename(&building, &root).with_context(|| format!("moving the install to {}", root.display()))?;
    spinner.finish_and_clear();
    log::info!("installed mergiraf {PINNED} in {}", elapsed(started.elapsed()));
    installed(cache).with_context(|| format!("{}: no bin/mergiraf after the install", root.display()))
}

/// Runs `cargo install` into `root`, building in `target` (or the user's
/// `CARGO_TARGET_DIR`), its output into `log`.
fn run_cargo(cargo: &Path, root: &Path, target: &Path, log: &Path) -> Result<()> {
    let out = File::create(log).with_context(|| format!("creating {}", log.display()))?;
    let err = out.try_clone()?;
    let mut command = Command::new(cargo);
    command
        .args(["install", "mergiraf", "--version", PINNED, "--locked", "--root"])
        .arg(root)
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    // As `cargo install` itself: a CARGO_TARGET_DIR set by the user is where it builds
    // (a warm one makes a reinstall take seconds); otherwise a folder of this install.
    if std::env::var_os("CARGO_TARGET_DIR").is_none_or(|dir| dir.is_empty()) {
        command.arg("--target-dir").arg(target);
    }
    let status = match command.status() {
        Ok(status) => status,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "no mergiraf found, and no `{}` to install mergiraf {PINNED} with (install Rust from https://rustup.rs); {ADVICE}",
            cargo.display()
        ),
        Err(e) => bail!("cannot run `{}` to install mergiraf {PINNED}: {e}; {ADVICE}", cargo.display()),
    };
    if !status.success() {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let cause = text.lines().rev().find(|l| l.starts_with("error")).map_or(String::new(), |l| format!(": {l}"));
        bail!(
            "`cargo install mergiraf --version {PINNED}` failed ({status}){cause}; full output in {}; {ADVICE}",
            log.display()
        );
    }
    Ok(())
}

/// Takes the install lock, waiting (with a note) while another process holds it.
fn lock(path: &Path, spinner: &ProgressBar) -> Result<File> {
    let file = File::create(path).with_context(|| format!("creating {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => return Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => {}
        Err(std::fs::TryLockError::Error(e)) => return Err(e).with_context(|| format!("locking {}", path.display())),
    }
    let note = format!("waiting for another mergeforge to finish installing mergiraf {PINNED}");
    if spinner.is_hidden() {
        log::info!("{note}");
    }
    spinner.set_message(note);
    file.lock().with_context(|| format!("locking {}", path.display()))?;
    Ok(file)
}

fn spinner(visible: bool) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let spinner = ProgressBar::new_spinner();
    let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_spinner());
    spinner.set_style(style);
    spinner.enable_steady_tick(Duration::from_millis(200));
    spinner
}

/// Whether `path` is an executable file.
pub(crate) fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `4m 12s`, `38s`.
fn elapsed(duration: Duration) -> String {
    let seconds = duration.as_secs();
    if seconds >= 60 {
        format!("{}m {:02}s", seconds / 60, seconds % 60)
    } else {
        format!("{seconds}s")
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// A `cargo` stand-in: a shell script with `body`, which sees the `--root` argument
    /// as `$root` and counts its runs in `<dir>/runs`.
    fn fake_cargo(dir: &Path, body: &str) -> PathBuf {
        let path = dir.join("cargo");
        let script = format!(
            "#!/bin/sh\nset -e\necho run >> '{}'\nwhile [ \"$1\" != --root ]; do shift; done\nroot=\"$2\"\n{body}\n",
            dir.join("runs").display()
        );
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    const WRITES_BINARY: &str =
        "echo 'Compiling mergiraf'\nmkdir -p \"$root/bin\"\nprintf '#!/bin/sh\\necho mergiraf 0.20.0\\n' > \"$root/bin/mergiraf\"\nchmod +x \"$root/bin/mergiraf\"";

    fn runs(dir: &Path) -> usize {
        std::fs::read_to_string(dir.join("runs")).map_or(0, |t| t.lines().count())
    }

    fn leftovers(cache: &Path) -> Vec<String> {
        std::fs::read_dir(cache.join("tools"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(&staging_prefix()))
            .collect()
    }

    #[test]
    fn installs_into_a_temporary_root_and_moves_it_into_place_once() {
        let work = tempfile::tempdir().unwrap();
        let cargo = fake_cargo(work.path(), WRITES_BINARY);
        let cache = work.path().join("cache");
        // A folder an install killed on this host left, to be cleared.
        let tag = crate::leftovers::owner_tag();
        let host = tag.rsplit_once('-').unwrap().0;
        let dead = format!("{}{host}-{}-x", staging_prefix(), u32::MAX - 7);
        std::fs::create_dir_all(cache.join("tools").join(dead).join("target")).unwrap();
        let binary = install(&cargo, &cache, false).unwrap();
        assert_eq!(binary, install_root(&cache).join("bin/mergiraf"));
        assert_eq!(installed(&cache), Some(binary.clone()));
        let version = Command::new(&binary).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&version.stdout), "mergiraf 0.20.0\n");
        let log = std::fs::read_to_string(cache.join(format!("tools/mergiraf-{PINNED}.log"))).unwrap();
        assert!(log.contains("Compiling mergiraf"), "{log}");
        assert!(leftovers(&cache).is_empty(), "{:?}", leftovers(&cache));
        install(&cargo, &cache, false).unwrap();
        assert_eq!(runs(work.path()), 1, "a second install reuses the first");
    }

    #[test]
    fn concurrent_installs_run_cargo_once() {
        let work = tempfile::tempdir().unwrap();
        let cargo = fake_cargo(work.path(), &format!("sleep 0.5\n{WRITES_BINARY}"));
        let cache = work.path().join("cache");
        let binaries: Vec<PathBuf> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..3).map(|_| scope.spawn(|| install(&cargo, &cache, false).unwrap())).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(binaries.iter().all(|b| *b == install_root(&cache).join("bin/mergiraf")));
        assert_eq!(runs(work.path()), 1);
    }

    #[test]
    fn a_failed_install_leaves_nothing_that_looks_installed_and_says_what_to_do() {
        let work = tempfile::tempdir().unwrap();
        let cargo = fake_cargo(
            work.path(),
            "mkdir -p \"$root/bin\"\necho 'error: failed to compile `mergiraf v0.20.0`' >&2\nexit 101",
        );
        let cache = work.path().join("cache");
        let err = format!("{:#}", install(&cargo, &cache, false).unwrap_err());
        let log = cache.join(format!("tools/mergiraf-{PINNED}.log"));
        assert!(!err.contains('\n'), "one line: {err}");
        assert!(err.contains("error: failed to compile `mergiraf v0.20.0`"), "{err}");
        assert!(err.contains(&log.display().to_string()), "{err}");
        assert!(err.contains("--no-mergiraf") && err.contains("PATH"), "{err}");
        assert!(!install_root(&cache).exists());
        assert_eq!(installed(&cache), None);
        assert!(leftovers(&cache).is_empty(), "{:?}", leftovers(&cache));
        // The same message when cargo finishes without a binary.
        let quiet = fake_cargo(work.path(), "true");
        let err = format!("{:#}", install(&quiet, &cache, false).unwrap_err());
        assert!(err.contains("wrote no bin/mergiraf") && err.contains("--no-mergiraf"), "{err}");
        assert!(!install_root(&cache).exists());
    }

    #[test]
    fn a_missing_cargo_is_one_line_naming_the_ways_out() {
        let work = tempfile::tempdir().unwrap();
        let err =
            format!("{:#}", install(&work.path().join("no-cargo"), &work.path().join("cache"), false).unwrap_err());
        assert!(!err.contains('\n'), "{err}");
        assert!(err.contains("rustup.rs") && err.contains("--no-mergiraf") && err.contains("PATH"), "{err}");
        assert!(!install_root(&work.path().join("cache")).exists());
    }

    #[test]
    fn the_docker_image_installs_the_pinned_release() {
        let dockerfile = include_str!("../../../deploy/Dockerfile");
        assert!(dockerfile.contains(&format!("MERGIRAF_VERSION={PINNED}")), "deploy/Dockerfile: MERGIRAF_VERSION");
    }

    #[test]
    fn elapsed_reads_as_minutes_and_seconds() {
        assert_eq!(elapsed(Duration::from_secs(38)), "38s");
        assert_eq!(elapsed(Duration::from_secs(252)), "4m 12s");
    }
}
