//! commit-replay through `gen-tasks --history`: a real git repository, built here, whose
//! history holds one commit that changes code with its tests (a gold patch) and commits
//! of every kind the history scan skips. The run makes a task of the gold patch against
//! a refactor of its parent, keeps the commit's author and message, records where it
//! came from, and the task re-checks with plain git and pytest from its bundles.

use std::path::Path;

use crate::common::{git, read_json, run_mergeforge, verify_task_with_git, write_file as write};

const STATS: &str = "def count_items(items):\n    return len(items)\n\n\ndef total(items):\n    return sum(items)\n";
const TESTS: &str = "from calc.stats import count_items, total\n\n\ndef test_count():\n    assert count_items([1, 2]) == 2\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n";

fn commit(dir: &Path, author: &str, message: &str) {
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "--author", author, "-m", message]);
}

/// Oldest first: the project's first commit (root), the gold patch (`mean` with its
/// test, by Ada), a README change (no source), a source-only change (no test), a gold
/// patch whose test imports a package nobody installed, and a test-only change.
fn history(dir: &Path) -> String {
    git(dir, &["init", "-q"]);
    write(dir, "calc/__init__.py", "");
    write(dir, "calc/stats.py", STATS);
    write(dir, "tests/test_stats.py", TESTS);
    commit(dir, "Bo <bo@example.org>", "Start the stats module");
    let stats = STATS.replace(
        "\n\ndef total(items):",
        "\n\ndef mean(items):\n    return total(items) / count_items(items)\n\n\ndef total(items):",
    );
    write(dir, "calc/stats.py", &stats);
    let tests = TESTS.replace("import count_items, total", "import count_items, mean, total")
        + "\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n";
    write(dir, "tests/test_stats.py", &tests);
    commit(dir, "Ada Lovelace <ada@example.org>", "Add mean() of a sequence\n\nThe average of the items.");
    let gold_patch = git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    write(dir, "README.md", "# calc\n");
    commit(dir, "Bo <bo@example.org>", "Add a README");
    let documented = format!("\"\"\"Statistics.\"\"\"\n\n\n{stats}");
    write(dir, "calc/stats.py", &documented);
    commit(dir, "Bo <bo@example.org>", "Document the module");
    // A gold patch whose test needs a package the venv does not have, dropped later.
    let median = "\n\ndef median(items):\n    return sorted(items)[count_items(items) // 2]\n";
    write(dir, "calc/stats.py", &format!("{documented}{median}"));
    let needs = "import mergeforge_absent_dependency\nfrom calc.stats import median\n\n\ndef test_median():\n    assert median([3, 1, 2]) == 2\n";
    write(dir, "tests/test_median.py", needs);
    commit(dir, "Bo <bo@example.org>", "Add median()");
    write(dir, "tests/test_median.py", needs.replace("import mergeforge_absent_dependency\n", "").as_str());
    commit(dir, "Bo <bo@example.org>", "Drop an import the test does not use");
    gold_patch
}

#[test]
fn a_commit_with_its_tests_becomes_a_task_against_a_refactor_of_its_parent() {
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let gold_patch = history(&repo);
    let out = work.path().join("out");
    let output = run_mergeforge(&[
        "gen-tasks",
        "--substrate",
        repo.to_str().unwrap(),
        "--test-cmd",
        "python -m pytest -q -p no:cacheprovider tests",
        "--history",
        "10",
        "--families",
        "commit-replay",
        "--no-mergiraf",
        "--json",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "gen-tasks failed: {stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let history = &report["history"];
    assert_eq!(history["considered"], 6, "{report}");
    assert_eq!(history["commits"], 2);
    for (reason, n) in [("root-commit", 1), ("no-source-change", 2), ("no-test-change", 1)] {
        assert_eq!(history["skipped"][reason], n, "{reason}: {history}");
    }
    // The commit needing a package the venv lacks is rejected with that reason.
    assert!(report["rejected"]["missing-dependency"].as_u64().unwrap_or(0) >= 1, "{report}");
    assert!(report["stage_seconds"]["judge"].as_f64().unwrap() > 0.0, "{report}");
    assert_eq!(report["by_family"]["commit-replay"], 1, "{report}");

    let version = Path::new(report["version_dir"].as_str().unwrap());
    let task_dir = std::fs::read_dir(version.join("tasks")).unwrap().next().unwrap().unwrap().path();
    let solution = read_json(&task_dir.join("solution.json"));
    assert_eq!(solution["origin"]["kind"], "commit");
    assert_eq!(solution["origin"]["commit"], gold_patch.as_str());
    let ours = &solution["intents"]["ours"];
    assert_eq!(ours["author"]["name"], "Ada Lovelace");
    assert_eq!(ours["message"], "Add mean() of a sequence\n\nThe average of the items.");
    let theirs = &solution["intents"]["theirs"]["changes"][0];
    assert_eq!(theirs["symbol"], "count_items", "the refactor renames what the commit's new lines use: {solution}");
    // gold carries the refactor into the commit's new line.
    let gold = solution["files"].as_array().unwrap().iter().find(|f| f["path"] == "calc/stats.py").unwrap();
    let renamed = theirs["target"].as_str().unwrap();
    assert!(gold["gold"].as_str().unwrap().contains(&format!("total(items) / {renamed}(items)")), "{gold}");

    // The bundles carry the real author, date and message.
    let clone = work.path().join("clone");
    git(work.path(), &["clone", "-q", task_dir.join("repo.bundle").to_str().unwrap(), "clone"]);
    let log = git(&clone, &["log", "-1", "--format=%an|%ae|%at|%B", "origin/ours"]);
    let real = git(&repo, &["log", "-1", "--format=%an|%ae|%at|%B", &gold_patch]);
    assert_eq!(log, real);
    assert!(log.starts_with("Ada Lovelace|ada@example.org|"), "{log}");
    verify_task_with_git(&task_dir);
}
