//! History on its own era (`gen-tasks --history`, `--history-python era`, the default):
//! each commit's tests run on the interpreter its metadata and date point to, with its
//! dependencies as of its date. The interpreters here are stand-ins (`python3.9` and
//! `python3.10` scripts that report those versions and run the machine's Python), so the
//! test does not depend on what a CI machine has installed; pyenv's are hidden. The
//! dependencies are real: uv resolves them against PyPI as of each commit's date. The
//! second tier plays one commit on a real old interpreter when pyenv has one.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{git, mergeforge, read_json, verify_task_on_its_python, write_file as write};

const STATS: &str = "def count_items(items):\n    return len(items)\n\n\ndef total(items):\n    return sum(items)\n";
const TESTS: &str = "from calc.stats import count_items, total\n\n\ndef test_count():\n    assert count_items([1, 2]) == 2\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n";

/// `setup.py` listing `versions` (`["3.9", "3.10"]`) as classifiers, with `extra` keywords.
fn setup_py(versions: &[&str], extra: &str) -> String {
    let classifiers: Vec<String> =
        versions.iter().map(|v| format!("'Programming Language :: Python :: {v}'")).collect();
    format!("from setuptools import setup\n\nsetup(name='calc', classifiers=[{}]{extra})\n", classifiers.join(", "))
}

/// Commits `dir`'s changes with both dates at `date` (`2022-06-01T12:00:00Z`).
fn commit_at(dir: &Path, date: &str, message: &str) {
    git(dir, &["add", "-A"]);
    let status = Command::new("git")
        .args(["commit", "-q", "--author", "Ada Lovelace <ada@example.org>", "-m", message])
        .current_dir(dir)
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .status()
        .unwrap();
    assert!(status.success(), "git commit {message}");
}

/// Oldest first: the root (2021, Python 3.9); a gold patch whose setup.py lists only
/// Python 2.7 (skipped); a gold patch of mid-2022 listing 3.9 and 3.10 (its era: 3.10,
/// as of its date); a gold patch requiring Python 3.99 (no interpreter fits). Returns
/// the 2022 gold patch's id.
fn history(dir: &Path) -> String {
    git(dir, &["init", "-q"]);
    write(dir, "setup.py", &setup_py(&["3.9"], ""));
    write(dir, "calc/__init__.py", "");
    write(dir, "calc/stats.py", STATS);
    write(dir, "tests/test_stats.py", TESTS);
    commit_at(dir, "2021-01-10T12:00:00Z", "Start the stats module");
    let add = |name: &str, body: &str, test: &str| {
        let stats = std::fs::read_to_string(dir.join("calc/stats.py")).unwrap();
        write(dir, "calc/stats.py", &format!("{stats}\n\ndef {name}(items):\n    {body}\n"));
        let tests = std::fs::read_to_string(dir.join("tests/test_stats.py")).unwrap();
        let tests = tests.replacen("from calc.stats import ", &format!("from calc.stats import {name}, "), 1);
        write(dir, "tests/test_stats.py", &format!("{tests}\n\ndef test_{name}():\n    {test}\n"));
    };
    write(dir, "setup.py", &setup_py(&["2.7"], ""));
    add("largest", "return max(items) if count_items(items) else None", "assert largest([1, 3]) == 3");
    commit_at(dir, "2021-03-01T12:00:00Z", "Add largest()");
    write(dir, "setup.py", &setup_py(&["3.9", "3.10"], ""));
    add("mean", "return total(items) / count_items(items)", "assert mean([1, 2, 3]) == 2");
    commit_at(dir, "2022-06-01T12:00:00Z", "Add mean() of a sequence");
    let era_patch = git(dir, &["rev-parse", "HEAD"]).trim().to_string();
    write(dir, "setup.py", &setup_py(&[], ", python_requires='>=3.99'"));
    add("smallest", "return min(items) if count_items(items) else None", "assert smallest([1, 3]) == 1");
    commit_at(dir, "2022-07-01T12:00:00Z", "Add smallest()");
    era_patch
}

/// Two commits listing `versions` in setup.py, at `dates`: the stats module, then
/// `mean()` with its test (a gold patch).
fn mean_history(dir: &Path, versions: &[&str], dates: [&str; 2]) {
    git(dir, &["init", "-q"]);
    write(dir, "setup.py", &setup_py(versions, ""));
    write(dir, "calc/__init__.py", "");
    write(dir, "calc/stats.py", STATS);
    write(dir, "tests/test_stats.py", TESTS);
    commit_at(dir, dates[0], "Start the stats module");
    write(
        dir,
        "calc/stats.py",
        &format!("{STATS}\n\ndef mean(items):\n    return total(items) / count_items(items)\n"),
    );
    let tests = TESTS.replace("import count_items, total", "import count_items, mean, total");
    write(dir, "tests/test_stats.py", &format!("{tests}\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n"));
    commit_at(dir, dates[1], "Add mean() of a sequence");
}

/// `gen-tasks` of commit-replay tasks from `repo`'s history into `out`, reporting in JSON.
fn gen_history(repo: &Path, out: &Path) -> Command {
    let mut command = mergeforge();
    command
        .args(["gen-tasks", "--substrate", repo.to_str().unwrap()])
        .args(["--test-cmd", "python -m pytest -q -p no:cacheprovider tests", "--history", "10"])
        .args(["--families", "commit-replay", "--no-mergiraf", "--json", "--out", out.to_str().unwrap()]);
    command
}

/// The one task of the version a `--json` report names.
fn only_task(report: &serde_json::Value) -> PathBuf {
    let version = Path::new(report["version_dir"].as_str().unwrap());
    std::fs::read_dir(version.join("tasks")).unwrap().next().unwrap().unwrap().path()
}

/// The machine's own Python 3 (its real path, past any version manager's shim).
fn real_python() -> PathBuf {
    let output = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().unwrap();
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

/// A folder of stand-ins: `python3.X` scripts that report `3.X.99` and run `real`.
fn stand_ins(dir: &Path, real: &Path, minors: &[u32]) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("stand-ins");
    std::fs::create_dir_all(&bin).unwrap();
    for minor in minors {
        let script = format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Python 3.{minor}.99'; exit 0; fi\nexec '{}' \"$@\"\n",
            real.display()
        );
        let path = bin.join(format!("python3.{minor}"));
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    bin
}

#[test]
fn each_commit_runs_on_its_own_interpreter_and_dependencies_of_its_date() {
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    let era_patch = history(&repo);
    let real = real_python();
    let bin = stand_ins(work.path(), &real, &[9, 10]);
    let no_pyenv = work.path().join("no-pyenv");
    std::fs::create_dir(&no_pyenv).unwrap();
    let out = work.path().join("out");
    let output = gen_history(&repo, &out)
        .env("PATH", format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()))
        .env("MERGEFORGE_PYTHON", &real)
        .env("PYENV_ROOT", &no_pyenv)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "gen-tasks failed: {stderr}");
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let history = &report["history"];
    assert_eq!(history["skipped"]["python-2"], 1, "{history}");
    assert_eq!(history["skipped"]["no-interpreter"], 1, "{history}");
    assert_eq!(history["not_installed"]["3.99"], 1, "{history}");
    assert_eq!(history["interpreters"], serde_json::json!({"3.10": 1}), "{history}");
    assert_eq!(report["by_family"]["commit-replay"], 1, "{report}");

    let task_dir = only_task(&report);
    let solution = read_json(&task_dir.join("solution.json"));
    assert_eq!(solution["origin"]["commit"], era_patch.as_str());
    // The lock is the one of 2022-06-01 for Python 3.10: pytest 7.1.2, not today's pin.
    let task = read_json(&task_dir.join("task.json"));
    let lock: Vec<&str> = task["python"]["lock"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    assert!(lock.contains(&"pytest==7.1.2"), "{lock:?}");
    // It re-checks with plain git and pytest on that interpreter and lock.
    verify_task_on_its_python(&task_dir);
}

#[test]
fn an_era_that_cannot_be_resolved_rejects_its_commits_and_says_why() {
    use std::os::unix::fs::PermissionsExt;
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    // A commit of a date no other test resolves: nothing is cached for its era.
    mean_history(&repo, &["3.10"], ["2023-01-10T12:00:00Z", "2023-03-07T12:00:00Z"]);
    // A uv that cannot reach the index.
    let uv = work.path().join("uv");
    std::fs::write(&uv, "#!/bin/sh\necho 'error: Failed to fetch: `https://pypi.org/simple/pytest/`' >&2\nexit 2\n")
        .unwrap();
    std::fs::set_permissions(&uv, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = work.path().join("out");
    let output = gen_history(&repo, &out).env("MERGEFORGE_UV", &uv).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "no task can be made: {stderr}");
    assert!(stderr.contains("unresolved-environment") && stderr.contains("Failed to fetch"), "{stderr}");
    assert!(stderr.contains("--history-python head"), "the way out is named: {stderr}");
}

mod second_tier {
    use super::*;

    /// On a real Python 3.6 (pyenv's, when installed): a 2018 commit listing 3.6 runs on it,
    /// with the pytest of its date.
    #[test]
    #[ignore = "second tier: a real old interpreter, when pyenv has one (about 30 s)"]
    fn a_2018_commit_runs_on_a_real_python_3_6() {
        let Some(python36) = pyenv_python("3.6") else {
            eprintln!("no pyenv Python 3.6 here: nothing to check");
            return;
        };
        let work = tempfile::tempdir().unwrap();
        let repo = work.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        mean_history(&repo, &["2.7", "3.6"], ["2018-01-10T12:00:00Z", "2018-05-02T12:00:00Z"]);
        let out = work.path().join("out");
        let output = gen_history(&repo, &out).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "gen-tasks failed: {stderr}");
        let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(report["history"]["interpreters"], serde_json::json!({"3.6": 1}), "{report}");
        assert_eq!(report["by_family"]["commit-replay"], 1, "{report}");
        let task_dir = only_task(&report);
        let task = read_json(&task_dir.join("task.json"));
        assert!(task["python"]["version"].as_str().unwrap().starts_with("3.6."), "{task}");
        let lock: Vec<&str> = task["python"]["lock"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert!(lock.iter().any(|p| p.starts_with("pytest==3.")), "the pytest of May 2018: {lock:?} ({python36:?})");
        verify_task_on_its_python(&task_dir);
    }

    /// pyenv's Python `minor` (`3.6`), if installed.
    fn pyenv_python(minor: &str) -> Option<PathBuf> {
        let root = std::env::var_os("PYENV_ROOT")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")))?;
        std::fs::read_dir(root.join("versions"))
            .ok()?
            .flatten()
            .map(|e| e.path())
            .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&format!("{minor}."))))
            .map(|p| p.join("bin").join("python3"))
            .filter(|p| p.exists())
    }
}
