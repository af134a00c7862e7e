//! The merge stage on real git objects: conflicts in diff3 style with fixed labels,
//! clean merges reported as such, and commits that are reproducible.

use std::sync::Arc;

use mergeforge::forge::commits::write_commits;
use mergeforge::merge::{merge, MergeResult};
use mergeforge::snapshot::Snapshot;

fn snap(files: &[(&str, &str)]) -> Snapshot {
    files.iter().map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes()))).collect()
}

#[test]
fn conflicting_edits_give_diff3_markers() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init_bare(dir.path()).unwrap();
    let base = snap(&[("pkg/m.py", "a = 1\nb = 2\nc = 3\n"), ("other.py", "x = 0\n")]);
    let ours = snap(&[("pkg/m.py", "a = 1\nb = 20\nc = 3\n"), ("other.py", "x = 0\n")]);
    let theirs = snap(&[("pkg/m.py", "a = 1\nb = 21\nc = 3\n"), ("other.py", "x = 1\n")]);
    let commits = write_commits(&repo, [&base, &ours, &theirs, &base], ["test", "test"]).unwrap();
    let MergeResult::Conflicted { tree, files } = merge(&repo, commits.ours, commits.theirs).unwrap() else {
        panic!("expected a conflict");
    };
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].path, "pkg/m.py");
    assert_eq!(files[0].hunks, 1);
    assert_eq!(files[0].conflicted_lines, 3);
    let text = std::str::from_utf8(&tree["pkg/m.py"]).unwrap();
    assert_eq!(text, "a = 1\n<<<<<<< ours\nb = 20\n||||||| base\nb = 2\n=======\nb = 21\n>>>>>>> theirs\nc = 3\n");
    // The clean side of the merge is taken as merged.
    assert_eq!(&*tree["other.py"], b"x = 1\n");
}

#[test]
fn separate_edits_merge_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init_bare(dir.path()).unwrap();
    let base = snap(&[("m.py", "a = 1\n\n\n\nb = 2\n")]);
    let ours = snap(&[("m.py", "a = 10\n\n\n\nb = 2\n")]);
    let theirs = snap(&[("m.py", "a = 1\n\n\n\nb = 20\n")]);
    let commits = write_commits(&repo, [&base, &ours, &theirs, &base], ["test", "test"]).unwrap();
    assert!(matches!(merge(&repo, commits.ours, commits.theirs).unwrap(), MergeResult::Clean { .. }));
}

#[test]
fn commits_are_reproducible_and_gold_is_a_merge() {
    let base = snap(&[("m.py", "a = 1\n")]);
    let ours = snap(&[("m.py", "a = 2\n")]);
    let theirs = snap(&[("m.py", "a = 3\n")]);
    let ids: Vec<_> = (0..2)
        .map(|_| {
            let dir = tempfile::tempdir().unwrap();
            let repo = git2::Repository::init_bare(dir.path()).unwrap();
            let commits = write_commits(&repo, [&base, &ours, &theirs, &ours], ["same", "same"]).unwrap();
            let gold = repo.find_commit(commits.gold).unwrap();
            assert_eq!(gold.parent_ids().collect::<Vec<_>>(), vec![commits.ours, commits.theirs]);
            assert_eq!(repo.find_commit(commits.base).unwrap().parent_count(), 0);
            commits
        })
        .collect();
    assert_eq!(ids[0], ids[1]);
}
