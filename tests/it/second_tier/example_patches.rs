//! The catalogues are single-source, proved on two real additions that cannot go stale:
//! each patch of `docs/examples/` (a resolver, an intent kind; CONTRIBUTING walks through
//! them) is applied to a scratch worktree of HEAD, and the project's regeneration command
//! run there. The change must then be the patch's new files, one line added to one
//! existing file (the catalogue's list) and generated files (`schemas/`,
//! `docs/reference/`, which must name the new entry); and the crate must check and the
//! new entry's data-driven cases pass. Both patches go into one worktree, one after the
//! other (each committed there before the next), so the crate is built once for both.
//!
//! Second tier (`cargo test --profile ci --test it -- --ignored second_tier::`): it builds
//! the crate in the scratch worktrees, sharing one target folder in the user cache
//! (`~/.cache/mergeforge/cargo-target/example-patches`, as the pytest venv is), so every
//! build after the first on a machine reuses the dependencies and rebuilds only the
//! patched crate.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::root;

/// One example addition and what it may touch.
struct Example {
    /// The patch, under `docs/examples/`.
    patch: &'static str,
    /// The one existing file the patch edits by hand: the catalogue's list.
    list: &'static str,
    /// The new entry's name, as the generated reference tables show it (in backticks).
    entry: &'static str,
    /// The test filter that runs the catalogue's data-driven cases.
    cases: &'static str,
}

const EXAMPLES: [Example; 2] = [
    Example { patch: "add-a-resolver.patch", list: "src/resolve/mod.rs", entry: "imports", cases: "resolvers::" },
    Example {
        patch: "add-an-intent-kind.patch",
        list: "src/intent/kind.rs",
        entry: "sort-imports",
        cases: "intents::",
    },
];

/// The folders `mergeforge regenerate` writes.
const GENERATED: [&str; 2] = ["schemas/", "docs/reference/"];

#[test]
#[ignore = "second tier: builds the crate in a scratch worktree (minutes)"]
fn each_example_patch_adds_new_files_one_list_line_and_generated_files() {
    let target = mergeforge::pytest::venv::user_cache_dir().join("cargo-target").join("example-patches");
    let started = std::time::Instant::now();
    check_all(&target).unwrap_or_else(|problem| panic!("{problem}"));
    eprintln!("docs/examples: both patches ok in {:.0?}", started.elapsed());
}

/// Applies the examples one after the other to one scratch worktree of HEAD, each
/// regenerated, checked and committed there (so the next one's change is its own), then
/// checks the crate and runs every entry's cases once: one build for both.
fn check_all(target: &Path) -> Result<(), String> {
    let scratch = Scratch::of_head(&root())?;
    let tree = &scratch.path();
    for example in &EXAMPLES {
        apply(example, tree, target).map_err(|problem| format!("docs/examples/{}: {problem}", example.patch))?;
    }
    run(cargo(tree, target).args(["check", "--locked", "--all-targets"]))?;
    let cases = EXAMPLES.iter().map(|example| example.cases);
    run(cargo(tree, target).args(["test", "--locked", "--test", "it", "--"]).args(cases))?;
    Ok(())
}

/// Applies `example` to `tree`, regenerates, checks the change and commits it.
fn apply(example: &Example, tree: &Path, target: &Path) -> Result<(), String> {
    let patch = root().join("docs/examples").join(example.patch);
    let created = created_paths(&run(git(tree).args(["apply", "--summary"]).arg(&patch))?);
    run(git(tree).arg("apply").arg(&patch))?;
    run(cargo(tree, target).args(["run", "--locked", "-q", "--", "regenerate"]))?;
    check_changes(tree, example, &created)?;
    run(git(tree).args(["add", "--all"]))?;
    run(git(tree)
        .args(["-c", "user.name=example", "-c", "user.email=example@localhost", "commit", "-q", "-m"])
        .arg(example.patch))?;
    Ok(())
}

/// The change in `tree` is the patch's new files, one line added to the list file, and
/// generated files that name the new entry.
fn check_changes(tree: &Path, example: &Example, created: &BTreeSet<String>) -> Result<(), String> {
    let status = run(git(tree).args(["status", "--porcelain=v1", "--untracked-files=all", "--no-renames"]))?;
    let mut new = BTreeSet::new();
    let mut edited = BTreeSet::new();
    let mut generated = BTreeSet::new();
    for line in status.lines() {
        let (code, path) = line.split_at(3);
        match code.trim() {
            "??" => new.insert(path.to_string()),
            "M" if GENERATED.iter().any(|folder| path.starts_with(folder)) => generated.insert(path.to_string()),
            "M" => edited.insert(path.to_string()),
            _ => return Err(format!("unexpected change `{line}`; git status:\n{status}")),
        };
    }
    if &new != created {
        return Err(format!("new files {new:?}, but the patch creates {created:?}"));
    }
    if edited != BTreeSet::from([example.list.to_string()]) {
        return Err(format!("hand-edited files {edited:?}, expected only {}; git status:\n{status}", example.list));
    }
    let numstat = run(git(tree).args(["diff", "--numstat", "--", example.list]))?;
    if !numstat.starts_with("1\t0\t") {
        return Err(format!(
            "{} must gain exactly one line (the entry's), got numstat `{}`",
            example.list,
            numstat.trim()
        ));
    }
    let diff = run(git(tree).args(["diff", "--"]).args(GENERATED))?;
    let named = format!("`{}`", example.entry);
    if !diff.lines().any(|line| line.starts_with('+') && line.contains(&named)) {
        return Err(format!("no generated file gained a line naming {named}; generated files changed: {generated:?}"));
    }
    Ok(())
}

/// The paths `git apply --summary` says the patch creates.
fn created_paths(summary: &str) -> BTreeSet<String> {
    summary
        .lines()
        .filter_map(|line| line.trim().strip_prefix("create mode "))
        .filter_map(|rest| rest.split_once(' ').map(|(_, path)| path.to_string()))
        .collect()
}

/// `git` in `dir`.
fn git(dir: &Path) -> Command {
    let mut command = Command::new("git");
    command.current_dir(dir);
    command
}

/// The cargo running this test, in `dir`, building into `target` (a folder of its own:
/// the running build holds the lock of this one's).
fn cargo(dir: &Path, target: &Path) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(dir).env("CARGO_TARGET_DIR", target);
    command
}

/// Runs `command`; its stdout, or `Err` with the command and everything it printed.
fn run(command: &mut Command) -> Result<String, String> {
    let output = command.output().map_err(|e| format!("{command:?} did not start: {e}"))?;
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    if output.status.success() {
        return Ok(text(&output.stdout));
    }
    Err(format!(
        "{command:?} failed ({})\n--- stdout ---\n{}\n--- stderr ---\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    ))
}

/// A detached worktree of a repository's HEAD in a temporary folder, removed on drop
/// (a failed check included).
struct Scratch {
    repo: PathBuf,
    folder: tempfile::TempDir,
}

impl Scratch {
    fn of_head(repo: &Path) -> Result<Scratch, String> {
        let folder = tempfile::Builder::new().prefix("example-patch-").tempdir().map_err(|e| e.to_string())?;
        let scratch = Scratch { repo: repo.to_path_buf(), folder };
        run(git(repo).args(["worktree", "add", "--detach"]).arg(scratch.path()).arg("HEAD"))?;
        Ok(scratch)
    }

    fn path(&self) -> PathBuf {
        self.folder.path().join("tree")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let removed = run(git(&self.repo).args(["worktree", "remove", "--force"]).arg(self.path()));
        if let Err(problem) = removed {
            eprintln!("scratch worktree not removed: {problem}");
        }
    }
}
