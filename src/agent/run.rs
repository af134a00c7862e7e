//! Runs an agent command once, in an episode's repository, inside the sandbox under the
//! agent's [`Policy`], separate from the test runs' limits ([`Limits::for_agent`]):
//!
//! * it may write its episode's folder only: the repository, its `HOME` (a fresh copy
//!   of `--agent-home`, or empty) and its `TMPDIR`;
//! * it may read the system's folders, the tests' interpreter, the `mergeforge` program
//!   (so a scripted agent can call `mergeforge resolve`) and the policy's read-only
//!   paths; not the dataset, other episodes or the user's home (Landlock);
//! * its network is the policy's: its own empty namespace, or the host's;
//! * its environment is the sandbox's scrubbed one, the tests' variables (`PATH` starts
//!   with the interpreter's folder, then `mergeforge`'s and every read-only path that is
//!   a `bin` folder), the brief's and the variables the policy passes through, whose
//!   values are read here and never recorded;
//! * past the timeout (wall clock) its process group and everything in its cgroup are
//!   killed.
//!
//! Where the host cannot confine it (no Landlock, or no network namespace when the
//! policy says no network) it is refused unless the policy allows running unconfined.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};

use super::command::{AgentCommand, AgentNetwork, Policy};
use crate::sandbox::confine::landlock_available;
use crate::sandbox::{network_namespace_available, run_split, Limits, Network, Reads};

/// What one agent run did.
#[derive(Debug, Clone)]
pub(crate) struct AgentRun {
    /// Its exit code; `None` when killed (by the timeout or a signal).
    pub(crate) exit_code: Option<i32>,
    pub(crate) timed_out: bool,
    pub(crate) wall: Duration,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Refuses a policy naming paths that do not exist (a rule on a missing path would
/// leave the agent unconfined) or that this host cannot enforce, unless it allows
/// running unconfined.
pub(crate) fn check_confinement(policy: &Policy) -> Result<()> {
    if let Some(missing) = policy.read_only.iter().find(|p| !p.exists()) {
        bail!("--agent-ro {}: no such file or folder", missing.display());
    }
    if let Some(home) = policy.home.as_ref().filter(|h| !h.is_dir()) {
        bail!("--agent-home {}: not a folder", home.display());
    }
    if policy.allow_unconfined {
        return Ok(());
    }
    if !landlock_available() {
        bail!(
            "the agent command is refused: Landlock is not available here, so it could read the dataset and write \
             outside its episode (add --allow-unconfined-run to run it anyway)"
        );
    }
    if policy.network == AgentNetwork::None && !network_namespace_available() {
        bail!(
            "the agent command is refused: no network namespace here (needs root), so --agent-network none cannot be \
             enforced (add --allow-unconfined-run to run it anyway, or give --agent-network host)"
        );
    }
    Ok(())
}

/// Runs `command` in `repo` (inside the episode folder `root`) under `policy`, with
/// `env` (the tests' and the brief's variables) and `reads` (the interpreter's folders)
/// added to what the policy gives.
pub(crate) fn run(
    command: &AgentCommand,
    policy: &Policy,
    repo: &Path,
    root: &Path,
    env: &BTreeMap<String, String>,
    reads: &[PathBuf],
) -> Result<AgentRun> {
    check_confinement(policy)?;
    if let Some(home) = &policy.home {
        copy_tree(home, &root.join("home")).with_context(|| format!("copying --agent-home {}", home.display()))?;
    }
    let mut env = env.clone();
    for name in &policy.env {
        if let Ok(value) = std::env::var(name) {
            env.insert(name.clone(), value);
        }
    }
    let mut readable: Vec<PathBuf> = reads.to_vec();
    readable.extend(policy.read_only.iter().cloned());
    // On PATH after the interpreter's folder: mergeforge's, then each read-only `bin`.
    let mut folders: Vec<PathBuf> = Vec::new();
    if let Ok(exe) = std::env::current_exe() {
        folders.extend(exe.parent().map(Path::to_path_buf));
        readable.push(exe);
    }
    folders.extend(policy.read_only.iter().filter(|p| p.is_dir() && p.ends_with("bin")).cloned());
    let path = env.get("PATH").cloned().unwrap_or_default();
    env.insert("PATH".to_string(), with_folders_after_first(&path, &folders));
    let network = match policy.network {
        AgentNetwork::None => Network::None,
        AgentNetwork::Host => Network::Host,
    };
    let limits = Limits::for_agent(policy.timeout, Reads::Only(readable), network);
    let output = run_split(repo, root, &command.argv, &env, &limits).with_context(|| {
        format!(
            "running the agent command `{}` (its program must be on the agent's PATH or absolute, and readable: \
                 --agent-ro)",
            command.program_name()
        )
    })?;
    Ok(AgentRun {
        exit_code: output.exit_code,
        timed_out: output.timed_out,
        wall: output.duration,
        stdout: output.stdout,
        stderr: output.stderr,
    })
}

/// `path` (a `PATH` value) with `folders` after its first entry (the interpreter's).
fn with_folders_after_first(path: &str, folders: &[PathBuf]) -> String {
    let mut entries: Vec<String> = path.split(':').filter(|e| !e.is_empty()).map(str::to_string).collect();
    let at = entries.len().min(1);
    entries.splice(at..at, folders.iter().map(|f| f.display().to_string()));
    entries.join(":")
}

/// Copies the folder `from` into `to` (created), files, folders and symlinks as they
/// are.
fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("reading {}", from.display()))? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&source, &target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else {
            std::fs::copy(&source, &target).with_context(|| format!("copying {}", source.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_folders_go_after_the_interpreters() {
        let folders = [PathBuf::from("/opt/mf/bin"), PathBuf::from("/opt/agent/bin")];
        assert_eq!(
            with_folders_after_first("/venv/bin:/usr/bin:/bin", &folders),
            "/venv/bin:/opt/mf/bin:/opt/agent/bin:/usr/bin:/bin"
        );
        assert_eq!(with_folders_after_first("", &folders[..1]), "/opt/mf/bin");
    }

    #[test]
    fn a_home_is_copied_with_its_folders_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir_all(home.join(".config/agent")).unwrap();
        std::fs::write(home.join(".config/agent/settings.json"), "{}").unwrap();
        std::os::unix::fs::symlink("settings.json", home.join(".config/agent/link")).unwrap();
        let copy = dir.path().join("copy");
        copy_tree(&home, &copy).unwrap();
        assert_eq!(std::fs::read_to_string(copy.join(".config/agent/link")).unwrap(), "{}");
        assert!(std::fs::symlink_metadata(copy.join(".config/agent/link")).unwrap().file_type().is_symlink());
    }
}
