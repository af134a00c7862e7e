//! The `refactor` rung through `mergeforge resolve --merge`, in real repositories in the
//! middle of a merge: each tree case of `tests/data/resolve/refactor/`, and hard tasks
//! of the committed sample whose bundle is copied without `solution.json` (the rung sees
//! base, ours and theirs alone), each resolved to its gold tree.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn git(dir: &Path, args: &[&str]) -> Output {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "merge.conflictStyle=diff3"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    output
}

fn resolve_merge(dir: &Path) -> Output {
    crate::common::mergeforge()
        .args(["resolve", "--resolver", "refactor", "--merge"])
        .current_dir(dir)
        .output()
        .unwrap()
}

/// Replaces the work tree's files (not `.git`) by those of `from`, and commits them.
fn commit_tree(dir: &Path, from: &Path, message: &str) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().unwrap() != ".git" {
            if path.is_dir() {
                std::fs::remove_dir_all(&path).unwrap();
            } else {
                std::fs::remove_file(&path).unwrap();
            }
        }
    }
    copy_dir(from, dir);
    git(dir, &["add", "-A"]);
    assert!(git(dir, &["commit", "-qm", message]).status.success());
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

/// The work tree's files (not `.git`) by relative path.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().unwrap() == ".git" {
                continue;
            }
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                out.push((path.strip_prefix(root).unwrap().to_path_buf(), std::fs::read(&path).unwrap()));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

#[test]
fn the_resolve_command_resolves_every_refactor_case_mid_merge() {
    let root = crate::common::root().join("tests/data/resolve/refactor");
    let mut failures = Vec::new();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let work = tempfile::tempdir().unwrap();
        let dir = work.path();
        git(dir, &["init", "-q", "-b", "base"]);
        commit_tree(dir, &case.join("base"), "base");
        git(dir, &["checkout", "-qb", "theirs"]);
        commit_tree(dir, &case.join("theirs"), "theirs");
        git(dir, &["checkout", "-q", "base"]);
        git(dir, &["checkout", "-qb", "ours"]);
        commit_tree(dir, &case.join("ours"), "ours");
        assert!(!git(dir, &["merge", "-q", "--no-commit", "theirs"]).status.success(), "{name}: merges cleanly");
        let output = resolve_merge(dir);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let ok = match case.join("expected").is_dir() {
            true => output.status.code() == Some(0) && files(dir) == files(&case.join("expected")),
            false => output.status.code() == Some(1) && stderr.contains("note: refactor: "),
        };
        if !ok {
            failures.push(format!("{name}: exit {:?}: {}", output.status.code(), stderr.trim()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Tasks of the committed sample that only the refactoring-aware rung solves (a rename
/// next to a feature, in one file and across two): the rung, given the task's
/// `repo.bundle` alone, gives gold's tree.
#[test]
fn sample_tasks_resolve_to_gold_without_their_solution() {
    let tasks = crate::common::root().join("generated/mergeforge-embedded/1.0.0/tasks");
    for id in ["ledger-6771435a6a", "ledger-b8f4ed7454", "processor-0f7646931a"] {
        let work = tempfile::tempdir().unwrap();
        let alone = work.path().join("task");
        std::fs::create_dir(&alone).unwrap();
        std::fs::copy(tasks.join(id).join("repo.bundle"), alone.join("repo.bundle")).unwrap();
        let dir = work.path().join("w");
        assert!(git(work.path(), &["clone", "-q", "task/repo.bundle", "w"]).status.success(), "{id}");
        git(&dir, &["checkout", "-q", "theirs"]);
        git(&dir, &["checkout", "-q", "ours"]);
        assert!(!git(&dir, &["merge", "-q", "--no-commit", "theirs"]).status.success(), "{id}: conflicts");
        let output = resolve_merge(&dir);
        assert_eq!(output.status.code(), Some(0), "{id}: {}", String::from_utf8_lossy(&output.stderr));
        let solution = tasks.join(id).join("solution.bundle");
        assert!(git(&dir, &["fetch", "-q", solution.to_str().unwrap(), "gold"]).status.success());
        let diff = git(&dir, &["diff", "--stat", "FETCH_HEAD", "--", "."]);
        assert!(diff.stdout.is_empty(), "{id}: differs from gold:\n{}", String::from_utf8_lossy(&diff.stdout));
    }
}
