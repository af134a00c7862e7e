//! A snapshot is the full content of a working tree: repository-relative path → bytes.
//!
//! Every stage passes trees around as snapshots; only `forge` and `bundle` turn them into
//! git objects, and only `sandbox` writes them to disk (into a private directory).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

/// Path (always `/`-separated, relative) → file content. Cheap to clone: contents are shared.
pub type Snapshot = BTreeMap<String, Arc<[u8]>>;

/// Writes every file of `snapshot` under `dir`, creating folders as needed.
pub fn materialise(snapshot: &Snapshot, dir: &Path) -> Result<()> {
    for (path, data) in snapshot {
        let target = dir.join(path);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&target, data).with_context(|| format!("writing {}", target.display()))?;
    }
    Ok(())
}

/// A content hash of the whole snapshot (paths and bytes), hex sha256.
/// Used as the identity of a tree for caching test outcomes.
pub(crate) fn content_id(snapshot: &Snapshot) -> String {
    let mut hasher = Sha256::new();
    for (path, data) in snapshot {
        hasher.update((path.len() as u64).to_le_bytes());
        hasher.update(path.as_bytes());
        hasher.update((data.len() as u64).to_le_bytes());
        hasher.update(data);
    }
    hex(&hasher.finalize())
}

/// Lower-case hex of some bytes.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Hex sha256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The file as UTF-8 text, if it is.
pub fn text_of<'a>(snapshot: &'a Snapshot, path: &str) -> Option<&'a str> {
    snapshot.get(path).and_then(|d| std::str::from_utf8(d).ok())
}

/// For each line of `text`, whether it is new: not blank, and no line of `versions` is
/// the same once both are trimmed (gold's lines that neither side has, a side's lines
/// that base lacks).
pub(crate) fn new_lines(text: &str, versions: &[&str]) -> Vec<bool> {
    let known: std::collections::BTreeSet<&str> = versions.iter().flat_map(|v| v.lines()).map(str::trim).collect();
    text.lines().map(str::trim).map(|line| !line.is_empty() && !known.contains(line)).collect()
}

/// Whether `path` belongs to the test suite: any file under a `tests` or `test` folder,
/// a `test_*.py` or `*_test.py` module, or a `conftest.py`.
pub fn is_test_file(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let name = parts.pop().unwrap_or_default();
    parts.iter().any(|dir| *dir == "tests" || *dir == "test")
        || name == "conftest.py"
        || (name.ends_with(".py") && (name.starts_with("test_") || name.ends_with("_test.py")))
}

/// `tree` judged by `gold`'s tests: gold's test files restored over it, and test files
/// gold does not have removed (the one judgement: a tree solves a task when gold's
/// test files, restored over it, pass).
pub(crate) fn with_tests_of(tree: &Snapshot, gold: &Snapshot) -> Snapshot {
    let mut out: Snapshot =
        tree.iter().filter(|(path, _)| !is_test_file(path)).map(|(p, d)| (p.clone(), d.clone())).collect();
    out.extend(gold.iter().filter(|(path, _)| is_test_file(path)).map(|(p, d)| (p.clone(), d.clone())));
    out
}

/// Returns a copy of `snapshot` with `path` replaced by `text`.
pub(crate) fn with_file(snapshot: &Snapshot, path: &str, text: &str) -> Snapshot {
    let mut out = snapshot.clone();
    out.insert(path.to_string(), Arc::from(text.as_bytes()));
    out
}

/// Every path of `base`, `ours` and `theirs`, sorted, once each.
pub(crate) fn paths_of<'a>(
    base: &'a Snapshot,
    ours: &'a Snapshot,
    theirs: &'a Snapshot,
) -> std::collections::BTreeSet<&'a String> {
    base.keys().chain(ours.keys()).chain(theirs.keys()).collect()
}

/// The tree git's three-way merge of `ours` and `theirs` (from `base`) gives when every
/// file merges without a conflict, file by file in memory (no rename detection); `None`
/// at the first conflict, or a file one side deletes and the other changes.
pub(crate) fn clean_merge(base: &Snapshot, ours: &Snapshot, theirs: &Snapshot) -> Option<Snapshot> {
    let mut merged = Snapshot::new();
    for path in paths_of(base, ours, theirs) {
        let (b, o, t) = (base.get(path), ours.get(path), theirs.get(path));
        let content = if o == t || b == t {
            o.cloned()
        } else if b == o {
            t.cloned()
        } else {
            Some(merge_file(b?, o?, t?)?)
        };
        if let Some(content) = content {
            merged.insert(path.clone(), content);
        }
    }
    Some(merged)
}

/// One file's three-way merge by git, if it has no conflict.
fn merge_file(base: &[u8], ours: &[u8], theirs: &[u8]) -> Option<Arc<[u8]>> {
    fn input(content: &[u8]) -> git2::MergeFileInput<'_> {
        let mut input = git2::MergeFileInput::new();
        input.content(content);
        input
    }
    // git2's `merge_file` does not initialise libgit2 itself (a `Buf` does).
    drop(git2::Buf::new());
    let (base, ours, theirs) = (input(base), input(ours), input(theirs));
    let merged = git2::merge_file(&base, &ours, &theirs, None).ok()?;
    merged.is_automergeable().then(|| Arc::from(merged.content()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> Snapshot {
        files.iter().map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes()))).collect()
    }

    #[test]
    fn test_files_are_the_suite_and_its_helpers() {
        for path in ["tests/test_a.py", "tests/helpers.py", "tests/data/x.json", "pkg/test/util.py", "test_top.py"] {
            assert!(is_test_file(path), "{path}");
        }
        for path in ["conftest.py", "src/pkg/conftest.py", "src/pkg/io_test.py"] {
            assert!(is_test_file(path), "{path}");
        }
        for path in ["src/pkg/testing.py", "src/latest.py", "contest.py", "src/tests.py", "src/test_data.txt"] {
            assert!(!is_test_file(path), "{path}");
        }
    }

    #[test]
    fn gold_tests_replace_and_remove_the_trees_own() {
        let resolved = tree(&[("src/a.py", "mine"), ("tests/test_a.py", "old"), ("tests/test_extra.py", "x")]);
        let gold = tree(&[("src/a.py", "gold"), ("src/b.py", "gold"), ("tests/test_a.py", "new")]);
        let judged = with_tests_of(&resolved, &gold);
        assert_eq!(judged, tree(&[("src/a.py", "mine"), ("tests/test_a.py", "new")]));
    }

    #[test]
    fn a_clean_merge_is_git_s_file_by_file_merge_and_none_at_a_conflict() {
        let base = tree(&[("a.py", "x = 1\n\n\n\ny = 2\n"), ("b.py", "b\n"), ("c.py", "c\n")]);
        let ours = tree(&[("a.py", "x = 10\n\n\n\ny = 2\n"), ("b.py", "b2\n"), ("c.py", "c\n")]);
        let theirs = tree(&[("a.py", "x = 1\n\n\n\ny = 20\n"), ("b.py", "b\n"), ("d.py", "d\n")]);
        let merged = tree(&[("a.py", "x = 10\n\n\n\ny = 20\n"), ("b.py", "b2\n"), ("d.py", "d\n")]);
        assert_eq!(clean_merge(&base, &ours, &theirs), Some(merged));
        let clash = tree(&[("a.py", "x = 11\n\n\n\ny = 2\n"), ("b.py", "b\n"), ("c.py", "c\n")]);
        assert_eq!(clean_merge(&base, &ours, &clash), None);
        let changed_deleted = tree(&[("a.py", "x = 1\n\n\n\ny = 2\n"), ("b.py", "b\n"), ("c.py", "c2\n")]);
        let deleted = tree(&[("a.py", "x = 1\n\n\n\ny = 2\n"), ("b.py", "b\n")]);
        assert_eq!(clean_merge(&base, &changed_deleted, &deleted), None);
    }
}
