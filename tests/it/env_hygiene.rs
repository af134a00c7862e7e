//! What a fresh episode's repository holds, listed exhaustively: every ref, every
//! object, every reflog. Only ours and theirs are branches (base is their parent); no
//! reflog, `ORIG_HEAD`, `FETCH_HEAD` or remote from the setup; every object is one of
//! the sides' or of the merge's own result, so none is gold's. Checked on both reset
//! paths: a copy of the task's template (twice: the reset that made it and a later one)
//! and the repository materialised afresh.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::*;
use mergeforge::bundle::task::ConflictKind;
use mergeforge::env::dataset::TaskChoice;
use mergeforge::env::template::ResetPath;
use mergeforge::env::{EnvConfig, Environment, ResetRequest};

const SAMPLE: &str = "generated/mergeforge-embedded/1.0.0";

fn lines(text: &str) -> BTreeSet<String> {
    text.lines().map(|l| l.split_whitespace().next().unwrap_or("").to_string()).filter(|l| !l.is_empty()).collect()
}

/// Objects reachable from ours and theirs, and those of the merge's result (the
/// `AUTO_MERGE` tree git keeps during a conflicted merge, the index's blobs, and trees
/// made only of those).
fn allowed_objects(repo: &Path, all: &BTreeSet<String>) -> BTreeSet<String> {
    let mut allowed = lines(&git(repo, &["rev-list", "--objects", "ours", "theirs"]));
    if repo.join(".git/AUTO_MERGE").is_file() {
        allowed.extend(lines(&git(repo, &["rev-list", "--objects", "--no-walk", "AUTO_MERGE"])));
        allowed.extend(lines(&git(repo, &["rev-parse", "AUTO_MERGE"])));
        for entry in git(repo, &["ls-tree", "-r", "-t", "AUTO_MERGE"]).lines() {
            allowed.insert(entry.split_whitespace().nth(2).unwrap().to_string());
        }
    }
    for entry in git(repo, &["ls-files", "-s"]).lines() {
        allowed.insert(entry.split_whitespace().nth(1).unwrap().to_string());
    }
    // Trees the merge wrote: every entry already allowed.
    loop {
        let before = allowed.len();
        let pending: Vec<String> = all.iter().filter(|o| !allowed.contains(*o)).cloned().collect();
        for object in pending {
            if git(repo, &["cat-file", "-t", &object]).trim() != "tree" {
                continue;
            }
            let entries = git(repo, &["ls-tree", &object]);
            if entries.lines().all(|e| allowed.contains(e.split_whitespace().nth(2).unwrap())) {
                allowed.insert(object);
            }
        }
        if allowed.len() == before {
            return allowed;
        }
    }
}

#[test]
fn a_fresh_episode_holds_base_ours_theirs_and_the_merge_only() {
    for reset_path in [ResetPath::Template, ResetPath::Clone] {
        check_fresh_episodes(reset_path);
    }
}

fn check_fresh_episodes(reset_path: ResetPath) {
    let work = tempfile::tempdir().unwrap();
    let config = EnvConfig { work_dir: work.path().to_path_buf(), reset_path, ..EnvConfig::default() };
    let env = Environment::new(&root().join(SAMPLE), config).expect("the sample loads");
    // One task of every conflict kind the sample has, each reset twice.
    let mut kinds = BTreeSet::new();
    let tasks: Vec<_> = env.tasks.tasks.iter().filter(|t| kinds.insert(t.task.conflict_kind)).cloned().collect();
    assert!(kinds.contains(&ConflictKind::Textual), "{kinds:?}");
    for entry in tasks.iter().chain(&tasks) {
        let request = ResetRequest {
            choice: TaskChoice { task_id: Some(entry.task.id.clone()), ..TaskChoice::default() },
            episode_id: None,
        };
        let (episode, _) = env.reset(&request).expect("reset");
        let repo = episode.repo();
        let id = &format!("{} ({reset_path:?})", entry.task.id);

        let refs = git(repo, &["for-each-ref", "--format=%(refname)"]);
        assert_eq!(refs, "refs/heads/ours\nrefs/heads/theirs\n", "{id}");
        assert_eq!(git(repo, &["symbolic-ref", "HEAD"]).trim(), "refs/heads/ours", "{id}");
        let git_dir: BTreeSet<String> = std::fs::read_dir(repo.join(".git"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        for trace in ["logs", "ORIG_HEAD", "FETCH_HEAD", "packed-refs"] {
            assert!(!git_dir.contains(trace), "{id}: .git/{trace} left by the setup: {git_dir:?}");
        }
        assert!(git_dir.contains("MERGE_HEAD"), "{id}: the merge is in progress");
        let remotes = git_output(repo, &["config", "--get-regexp", "^remote\\."]);
        assert!(remotes.stdout.is_empty(), "{id}: {}", String::from_utf8_lossy(&remotes.stdout));
        assert_eq!(git(repo, &["remote"]), "", "{id}");

        let all = lines(&git(repo, &["cat-file", "--batch-all-objects", "--batch-check"]));
        let allowed = allowed_objects(repo, &all);
        let stray: Vec<&String> = all.iter().filter(|o| !allowed.contains(*o)).collect();
        assert!(stray.is_empty(), "{id}: objects of neither side nor the merge: {stray:?}");
        let commits = lines(&git(repo, &["rev-list", "ours", "theirs"]));
        let solution = &entry.solution.commits;
        for side in [&solution.base, &solution.ours, &solution.theirs] {
            assert!(commits.contains(side), "{id}: {side} (base, ours or theirs) is reachable");
        }
        assert!(!all.contains(&solution.gold), "{id}: the gold commit is absent");
    }
}
