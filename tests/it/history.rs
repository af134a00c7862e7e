//! History as a substrate source (`mergeforge::substrate::history`): a real git
//! repository, built here with git commands, whose merge commits cover every reason a
//! merge gives no merge-replay task, and one that gives one; the walk classifies each,
//! and the test check runs real pytest in the sandbox on the trees it names.

use std::path::Path;
use std::time::Duration;

use mergeforge::pytest::testrun::TestRunner;
use mergeforge::pytest::venv::{ensure_venv, user_cache_dir};
use mergeforge::substrate::commit_files;
use mergeforge::substrate::history::{scan_merges, verify, MergeVerdicts, Skip};

use crate::common::{git, git_output};

const OPS: &str = "def add(a, b):\n    return a + b\n\n\ndef scale(x):\n    return x * 2\n";
const TESTS: &str = "from calc.ops import add, scale\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_scale():\n    assert scale(2) == 4\n";

fn write(dir: &Path, path: &str, text: &str) {
    let file = dir.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, text).unwrap();
}

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", message]);
}

/// On a branch from main: `edit` then commit; back on main: `main_edit` then commit.
fn diverge(dir: &Path, branch: &str, edit: &dyn Fn(), main_edit: &dyn Fn()) {
    git(dir, &["checkout", "-q", "-b", branch, "main"]);
    edit();
    commit_all(dir, &format!("{branch}: change"));
    git(dir, &["checkout", "-q", "main"]);
    main_edit();
    commit_all(dir, &format!("main: change before merging {branch}"));
}

/// Merges `branch` into main; a conflict is resolved by writing `resolution` (path, text).
fn merge(dir: &Path, branch: &str, resolution: &[(&str, &str)]) {
    let merged = git_output(dir, &["merge", "-q", "--no-ff", "-m", &format!("Merge {branch}"), branch]);
    if !merged.status.success() {
        assert!(!resolution.is_empty(), "merging {branch} conflicted: {}", String::from_utf8_lossy(&merged.stdout));
        for (path, text) in resolution {
            write(dir, path, text);
        }
        commit_all(dir, &format!("Merge {branch}"));
    }
}

/// A repository with one merge of each kind, oldest first:
/// replayable (theirs' own suite failing), clean, README-only conflict, test-only
/// conflict, modify/delete, unrelated histories, octopus, a conflict in a module no
/// test imports, and a resolution whose tests fail.
fn history_repository(dir: &Path) {
    git(dir, &["init", "-q"]);
    write(dir, "calc/__init__.py", "");
    write(dir, "calc/ops.py", OPS);
    write(dir, "calc/old.py", "OLD = 1\n");
    write(dir, "calc/unused.py", "VALUE = 1\n");
    write(dir, "tests/test_ops.py", TESTS);
    write(dir, "README.md", "calc\n");
    commit_all(dir, "initial");

    let ours_add = OPS.replace("return a + b", "return int(a) + int(b)");
    diverge(
        dir,
        "replayable",
        &|| write(dir, "calc/ops.py", &OPS.replace("return a + b", "return a + b + 1")),
        &|| write(dir, "calc/ops.py", &ours_add),
    );
    merge(dir, "replayable", &[("calc/ops.py", &ours_add)]);

    diverge(dir, "clean", &|| write(dir, "calc/ops.py", &ours_add.replace("x * 2", "2 * x")), &|| {
        write(dir, "README.md", "calc\n\nA calculator.\n")
    });
    merge(dir, "clean", &[]);

    diverge(dir, "readme", &|| write(dir, "README.md", "calc: sums\n"), &|| write(dir, "README.md", "calc: scales\n"));
    merge(dir, "readme", &[("README.md", "calc: sums and scales\n")]);

    let test_a = format!("{TESTS}\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n");
    let test_b = format!("{TESTS}\n\ndef test_scale_zero():\n    assert scale(0) == 0\n");
    diverge(dir, "tests", &|| write(dir, "tests/test_ops.py", &test_a), &|| write(dir, "tests/test_ops.py", &test_b));
    merge(dir, "tests", &[("tests/test_ops.py", &test_a)]);

    diverge(dir, "modify-delete", &|| write(dir, "calc/old.py", "OLD = 2\n"), &|| {
        std::fs::remove_file(dir.join("calc/old.py")).unwrap()
    });
    let resolved = git_output(dir, &["merge", "-q", "--no-ff", "modify-delete"]);
    assert!(!resolved.status.success(), "modify/delete should conflict");
    git(dir, &["rm", "-q", "calc/old.py"]);
    git(dir, &["commit", "-q", "-m", "Merge modify-delete"]);

    git(dir, &["checkout", "-q", "--orphan", "unrelated"]);
    git(dir, &["rm", "-q", "-r", "-f", "."]);
    write(dir, "NOTES.md", "notes\n");
    commit_all(dir, "unrelated root");
    git(dir, &["checkout", "-q", "main"]);
    git(dir, &["merge", "-q", "--no-ff", "--allow-unrelated-histories", "-m", "Merge unrelated", "unrelated"]);

    for (branch, file) in [("octo-a", "a.txt"), ("octo-b", "b.txt")] {
        git(dir, &["checkout", "-q", "-b", branch, "main"]);
        write(dir, file, "x\n");
        commit_all(dir, branch);
    }
    git(dir, &["checkout", "-q", "main"]);
    git(dir, &["merge", "-q", "--no-ff", "-m", "Merge octopus", "octo-a", "octo-b"]);

    diverge(dir, "unused", &|| write(dir, "calc/unused.py", "VALUE = 2\n"), &|| {
        write(dir, "calc/unused.py", "VALUE = 3\n")
    });
    merge(dir, "unused", &[("calc/unused.py", "VALUE = 5\n")]);

    let broken = ours_add.replace("int(a) + int(b)", "a - b");
    diverge(
        dir,
        "broken",
        &|| write(dir, "calc/ops.py", &ours_add.replace("int(a) + int(b)", "float(a) + b")),
        &|| write(dir, "calc/ops.py", &ours_add.replace("int(a) + int(b)", "a + float(b)")),
    );
    merge(dir, "broken", &[("calc/ops.py", &broken)]);
}

#[test]
fn the_walk_classifies_every_merge_and_the_test_check_keeps_only_a_real_resolution() {
    let work = tempfile::tempdir().unwrap();
    let dir = work.path();
    history_repository(dir);
    let repo = git2::Repository::open(dir).unwrap();

    let scan = scan_merges(&repo, 100).unwrap();
    assert_eq!(scan.considered, 9);
    let summaries: Vec<&str> = scan.merges.iter().map(|r| r.summary.as_str()).collect();
    assert_eq!(summaries, ["Merge broken", "Merge unused", "Merge replayable"], "newest first");
    let counts = scan.skip_counts();
    let count = |reason| counts[&reason];
    assert_eq!(count(Skip::CleanRemerge), 1);
    assert_eq!(count(Skip::NoPythonConflict), 1);
    assert_eq!(count(Skip::OnlyTestConflicts), 1);
    assert_eq!(count(Skip::UnsupportedConflict), 1);
    assert_eq!(count(Skip::NoMergeBase), 1);
    assert_eq!(count(Skip::Octopus), 1);
    assert_eq!(count(Skip::TestsFailAtMerge), 0, "the walk runs no tests");

    // The replay's commits are the merge's: base, first and second parent.
    let replay = &scan.merges[2];
    let rev = |spec: &str| git(dir, &["rev-parse", spec]).trim().to_string();
    let merge_id = replay.merge.to_string();
    assert_eq!(replay.ours.to_string(), rev(&format!("{merge_id}^1")));
    assert_eq!(replay.theirs.to_string(), rev(&format!("{merge_id}^2")));
    assert_eq!(replay.base.to_string(), rev("replayable~1"));
    let conflicted = std::str::from_utf8(&replay.conflicted["calc/ops.py"]).unwrap();
    assert!(conflicted.contains("<<<<<<< ours") && conflicted.contains(">>>>>>> theirs"), "{conflicted}");
    let gold = commit_files(&repo, replay.merge).unwrap();
    assert!(std::str::from_utf8(&gold["calc/ops.py"]).unwrap().contains("int(a) + int(b)"));

    // The last 2 merges only.
    let recent = scan_merges(&repo, 2).unwrap();
    assert_eq!(recent.considered, 2);
    assert_eq!(recent.merges.len(), 2);

    // The test check, with real pytest in the sandbox.
    let python = ensure_venv(&user_cache_dir(), &[]).unwrap();
    let command: Vec<String> =
        ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/"].iter().map(|s| s.to_string()).collect();
    let runner = TestRunner::new(&command, &Default::default(), Duration::from_secs(60), &python, None);
    let passes = |tree: &mergeforge::snapshot::Snapshot| Ok(runner.run_full(tree)?.passed);
    let verdicts: Vec<_> = scan.merges.iter().map(|r| verify(&repo, r, &passes).unwrap()).collect();
    assert_eq!(
        verdicts,
        [
            Err(Skip::TestsFailAtMerge),
            Err(Skip::ConflictedSolves),
            // theirs' own suite fails (its `+ 1`): recorded, not required.
            Ok(MergeVerdicts { base: true, ours: true, theirs: false }),
        ]
    );
}
