//! An episode's working copy: a real git repository in the middle of the task's merge,
//! materialised from `repo.bundle` with the git CLI (or copied from a task's template
//! made that way, see [`super::template`]), and the only door to its files.
//!
//! Materialising fetches `ours` and `theirs` from the bundle (which holds base, ours
//! and theirs only: gold is in `solution.bundle`, never read here), checks out `ours`
//! and runs `git merge theirs`:
//! MERGE_HEAD is set, `git status` shows the unmerged paths, the files carry diff3
//! conflict markers. Then the traces of the setup go (reflogs, `FETCH_HEAD`,
//! `ORIG_HEAD`): only ours and theirs are branches, base is their parent, and no object
//! of gold is there. Every path an agent names goes through [`Workspace::resolve`]:
//! relative, no `..`, nothing under `.git`, and, after following symlinks, still inside
//! the repository.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};

use crate::bundle::task::ConflictKind;

/// The repository of one episode: `<dir>/repo`, with `<dir>` private to the episode
/// (the sandbox keeps `home` and `tmp` next to the repository).
#[derive(Debug)]
pub struct Workspace {
    dir: tempfile::TempDir,
    repo: PathBuf,
    /// `repo` with symlinks resolved, for containment checks.
    canonical_repo: PathBuf,
}

/// A file as the agent may see it.
pub(crate) enum FileText {
    Text(String),
    NotUtf8,
}

impl Workspace {
    /// Materialises the task from `bundle` into a fresh directory under `parent`. A
    /// semantic task's merge applies without markers: it is left uncommitted
    /// (`--no-commit`, MERGE_HEAD set) for the agent to finish.
    pub(crate) fn materialise(bundle: &Path, parent: &Path, kind: ConflictKind) -> Result<Workspace> {
        let dir = tempfile::Builder::new()
            .prefix("mergeforge-episode-")
            .tempdir_in(parent)
            .with_context(|| format!("creating an episode directory in {}", parent.display()))?;
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo)?;
        let bundle = std::fs::canonicalize(bundle).with_context(|| format!("{}: cannot open", bundle.display()))?;
        let bundle_arg = bundle.to_string_lossy().into_owned();
        git(&repo, &["init", "-q"])?;
        git(
            &repo,
            &[
                "fetch",
                "-q",
                "--no-tags",
                &bundle_arg,
                "refs/heads/ours:refs/heads/ours",
                "refs/heads/theirs:refs/heads/theirs",
            ],
        )?;
        // Identity for the agent's own commits, diff3 markers for the merge below.
        let mut config = std::fs::OpenOptions::new().append(true).open(repo.join(".git/config"))?;
        std::io::Write::write_all(
            &mut config,
            b"[user]\n\tname = mergeforge agent\n\temail = agent@mergeforge.invalid\n[merge]\n\tconflictStyle = diff3\n",
        )?;
        git(&repo, &["checkout", "-q", "ours"])?;
        let semantic = kind == ConflictKind::Semantic;
        let mode = if semantic { "--no-commit" } else { "--no-edit" };
        let merge = git_command(&repo).args(["merge", mode, "--no-ff", "theirs"]).output()?;
        if merge.status.success() != semantic {
            let expected = if semantic { "merge without conflict" } else { "conflict" };
            bail!("{}: `git merge theirs` did not {expected}; the task is broken", bundle.display());
        }
        if !repo.join(".git/MERGE_HEAD").exists() {
            let stderr = String::from_utf8_lossy(&merge.stderr);
            bail!("{}: git merge failed without a conflict: {}", bundle.display(), stderr.trim());
        }
        remove_setup_traces(&repo)?;
        let canonical_repo = std::fs::canonicalize(&repo)?;
        Ok(Workspace { dir, repo, canonical_repo })
    }

    /// A fresh episode directory under `parent` whose `repo` `fill` creates (a copy of
    /// a task's template, see [`super::template`]).
    pub(crate) fn from_copy(parent: &Path, fill: impl FnOnce(&Path) -> Result<()>) -> Result<Workspace> {
        let dir = tempfile::Builder::new()
            .prefix("mergeforge-episode-")
            .tempdir_in(parent)
            .with_context(|| format!("creating an episode directory in {}", parent.display()))?;
        let repo = dir.path().join("repo");
        fill(&repo)?;
        let canonical_repo = std::fs::canonicalize(&repo)?;
        Ok(Workspace { dir, repo, canonical_repo })
    }

    /// The episode directory itself, no longer tied to this workspace (still removed
    /// when dropped, unless kept).
    pub(crate) fn into_dir(self) -> tempfile::TempDir {
        self.dir
    }

    /// The repository root.
    pub(crate) fn repo(&self) -> &Path {
        &self.repo
    }

    /// The episode directory (sandbox root: `home`, `tmp` and `repo` live here).
    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Paths git reports as unmerged, sorted.
    pub(crate) fn unmerged_paths(&self) -> Result<Vec<String>> {
        let out = git(&self.repo, &["diff", "--name-only", "--diff-filter=U", "-z"])?;
        let mut paths: Vec<String> = out.split('\0').filter(|p| !p.is_empty()).map(str::to_string).collect();
        paths.sort();
        paths.dedup();
        Ok(paths)
    }

    /// Checks an agent-supplied path and returns where it lives. `for_write` allows a
    /// file that does not exist yet (its parent directory must).
    pub(crate) fn resolve(&self, path: &str, for_write: bool) -> Result<PathBuf, String> {
        let relative = Path::new(path);
        if path.is_empty() {
            return Err("path is empty: give a path relative to the repository root".into());
        }
        if path.contains('\0') {
            return Err("path contains a NUL byte".into());
        }
        for component in relative.components() {
            match component {
                Component::Normal(name) if name == ".git" => {
                    return Err(format!("`{path}` is inside .git; only the working tree is editable"))
                }
                Component::Normal(_) | Component::CurDir => {}
                Component::ParentDir => return Err(format!("`{path}` leaves the repository (`..` is not allowed)")),
                Component::RootDir | Component::Prefix(_) => {
                    return Err(format!("`{path}` is absolute; give a path relative to the repository root"))
                }
            }
        }
        let full = self.repo.join(relative);
        let checked = match std::fs::canonicalize(&full) {
            Ok(real) => real,
            Err(_) if for_write => {
                let parent = full.parent().unwrap_or(&self.repo);
                let real_parent =
                    std::fs::canonicalize(parent).map_err(|_| format!("`{path}`: its directory does not exist"))?;
                if std::fs::symlink_metadata(&full).is_ok() {
                    // A dangling symlink: writing would create its target elsewhere.
                    return Err(format!("`{path}` is a symlink to a missing target"));
                }
                real_parent.join(full.file_name().unwrap_or_default())
            }
            Err(_) => return Err(format!("`{path}`: no such file in the repository")),
        };
        if !checked.starts_with(&self.canonical_repo) {
            return Err(format!("`{path}` resolves outside the repository (symlink)"));
        }
        if checked.strip_prefix(&self.canonical_repo).is_ok_and(|rest| rest.starts_with(".git")) {
            return Err(format!("`{path}` resolves into .git; only the working tree is editable"));
        }
        if checked.is_dir() {
            return Err(format!("`{path}` is a directory, not a file"));
        }
        Ok(checked)
    }

    /// Reads a file the agent named (already resolved).
    pub(crate) fn read(&self, full: &Path) -> Result<FileText, String> {
        let bytes = std::fs::read(full).map_err(|e| format!("{}: {e}", self.display(full)))?;
        Ok(match String::from_utf8(bytes) {
            Ok(text) => FileText::Text(text),
            Err(_) => FileText::NotUtf8,
        })
    }

    /// Writes a file the agent named (already resolved).
    pub(crate) fn write(&self, full: &Path, text: &str) -> Result<(), String> {
        std::fs::write(full, text).map_err(|e| format!("{}: {e}", self.display(full)))
    }

    fn display(&self, full: &Path) -> String {
        full.strip_prefix(&self.canonical_repo).unwrap_or(full).display().to_string()
    }

    /// Every regular file of the working tree (not `.git`, symlinks not followed),
    /// relative path → bytes, capped at `max_files` files of at most `max_bytes` each
    /// (bigger files are listed with empty content and `true`).
    pub(crate) fn scan(&self, max_files: usize, max_bytes: u64) -> TreeScan {
        let mut files = BTreeMap::new();
        let mut pending = vec![self.repo.clone()];
        while let Some(dir) = pending.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                if files.len() >= max_files {
                    break;
                }
                let path = entry.path();
                let Ok(kind) = entry.file_type() else { continue };
                let Ok(relative) = path.strip_prefix(&self.repo) else { continue };
                let relative = relative.to_string_lossy().into_owned();
                if relative == ".git" {
                    continue;
                }
                if kind.is_dir() {
                    pending.push(path);
                } else if kind.is_file() {
                    let too_big = entry.metadata().map(|m| m.len() > max_bytes).unwrap_or(true);
                    let bytes = if too_big { Vec::new() } else { std::fs::read(&path).unwrap_or_default() };
                    files.insert(relative, ScannedFile { bytes, too_big });
                }
            }
        }
        TreeScan { files }
    }
}

/// The working tree after a step.
#[derive(Debug, Default)]
pub(crate) struct TreeScan {
    pub(crate) files: BTreeMap<String, ScannedFile>,
}

#[derive(Debug)]
pub(crate) struct ScannedFile {
    pub(crate) bytes: Vec<u8>,
    pub(crate) too_big: bool,
}

impl TreeScan {
    /// A digest of every path and content: equal digests, equal trees.
    pub(crate) fn fingerprint(&self) -> String {
        let mut hasher = Sha256::new();
        for (path, file) in &self.files {
            hasher.update(path.as_bytes());
            hasher.update([0]);
            hasher.update((file.bytes.len() as u64).to_le_bytes());
            hasher.update(&file.bytes);
            hasher.update([file.too_big as u8]);
        }
        crate::snapshot::hex(&hasher.finalize())
    }

    /// The tree as a snapshot, for a graded copy (a file over the scan's size bound
    /// comes out empty).
    pub(crate) fn snapshot(&self) -> crate::snapshot::Snapshot {
        self.files.iter().map(|(path, file)| (path.clone(), std::sync::Arc::from(file.bytes.as_slice()))).collect()
    }

    /// The text of a file, if it exists and is UTF-8.
    pub(crate) fn text(&self, path: &str) -> Option<&str> {
        self.files.get(path).and_then(|f| std::str::from_utf8(&f.bytes).ok())
    }
}

/// Removes what setting the episode up left that a developer in the middle of this
/// merge would not have: the reflogs of the fetch and the checkout, `FETCH_HEAD` (it
/// names the bundle) and `ORIG_HEAD`. No remote is ever configured; the objects are the
/// bundle's (base, ours, theirs) and the merge's own result.
fn remove_setup_traces(repo: &Path) -> Result<()> {
    let git_dir = repo.join(".git");
    for file in ["FETCH_HEAD", "ORIG_HEAD"] {
        match std::fs::remove_file(git_dir.join(file)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("removing .git/{file}"))
            }
            _ => {}
        }
    }
    match std::fs::remove_dir_all(git_dir.join("logs")) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e).context("removing .git/logs"),
        _ => Ok(()),
    }
}

/// `git` with no user or system configuration, in `repo`.
fn git_command(repo: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(repo)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_TERMINAL_PROMPT", "0")
        .args(["-c", "init.defaultBranch=main", "-c", "advice.detachedHead=false", "-c", "gc.auto=0"]);
    command
}

/// Runs git and returns stdout, or an error naming the command and git's last line.
fn git(repo: &Path, args: &[&str]) -> Result<String> {
    let output = git_command(repo).args(args).output().context("running git: is git installed?")?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        bail!("git {} failed: {}", args.first().unwrap_or(&""), stderr.trim().lines().last().unwrap_or(""));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
