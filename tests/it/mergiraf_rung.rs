//! The mergiraf rung of the ladder, through the CLI: `--no-mergiraf` levels without it
//! and says so (manifest, summary, `--json`); without a mergiraf on PATH, gen-tasks
//! installs the pinned release with `cargo` into its cache (here a stand-in `cargo`
//! script on PATH, so the test builds nothing) or fails with one line saying what to do.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use mergeforge::resolve::mergiraf::install::{install_root, PINNED};

use crate::common::*;

/// PATH without the folders that hold a `mergiraf`, with `first` (if any) in front.
pub(crate) fn path_without_mergiraf(first: Option<&Path>) -> OsString {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs = std::env::split_paths(&path).filter(|dir| !dir.join("mergiraf").exists());
    std::env::join_paths(first.map(Path::to_path_buf).into_iter().chain(dirs)).unwrap()
}

/// `mergeforge gen-tasks` on a substrate that does not exist (so nothing runs after the
/// ladder is prepared), with PATH = `path` and the user cache in `cache`.
pub(crate) fn gen_tasks_nowhere(path: &OsString, cache: &Path, extra: &[&str]) -> Output {
    gen_tasks_nowhere_command(path, cache).args(extra).output().unwrap()
}

/// The command [`gen_tasks_nowhere`] runs, before its extra arguments.
pub(crate) fn gen_tasks_nowhere_command(path: &OsString, cache: &Path) -> Command {
    let mut command = mergeforge();
    command.env("PATH", path).env("MERGEFORGE_CACHE", cache).env_remove("MERGEFORGE_MERGIRAF").args([
        "gen-tasks",
        "--substrate",
        "/nonexistent/substrate",
        "--no-progress",
    ]);
    command
}

/// A `cargo` stand-in in `dir`: counts its runs in `dir/runs`, prints a line, then runs
/// `body` with the `--root` argument in `$root`.
fn fake_cargo(dir: &Path, body: &str) {
    std::fs::create_dir_all(dir).unwrap();
    let script = format!(
        "#!/bin/sh\nset -e\necho run >> '{}'\necho \"   Compiling mergiraf v{PINNED}\"\nwhile [ \"$1\" != --root ]; do shift; done\nroot=\"$2\"\n{body}\n",
        dir.join("runs").display()
    );
    let path = dir.join("cargo");
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn cargo_runs(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("runs")).map_or(0, |t| t.lines().count())
}

pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The line of `text` that starts with `error:`.
pub(crate) fn error_line(text: &str) -> &str {
    text.lines().find(|l| l.starts_with("error:")).unwrap_or_else(|| panic!("no error line in:\n{text}"))
}

#[test]
fn without_mergiraf_the_manifest_says_the_ladder_is_incomplete() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("out");
    let cache = work.path().join("cache");
    let run = |json: bool| {
        let mut command = mergeforge();
        command.env("PATH", path_without_mergiraf(None)).env_remove("MERGEFORGE_MERGIRAF").args([
            "gen-tasks",
            "--substrate",
            "substrates/calculator",
            "--families",
            "divergent-edit",
            "--per-cell",
            "1",
            "--candidates-per-cell",
            "6",
            "--no-progress",
            "--no-mergiraf",
        ]);
        command.arg("--out").arg(&out).arg("--cache").arg(&cache);
        if json {
            command.arg("--json");
        }
        let output = command.output().unwrap();
        assert!(output.status.success(), "gen-tasks failed: {}", stderr(&output));
        String::from_utf8(output.stdout).unwrap()
    };

    let report: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    let manifest = read_json(&out.join("mergeforge/1.0.0/manifest.json"));
    let ladder = &manifest["ladder"];
    assert_eq!(ladder["complete"], false, "{ladder}");
    assert_eq!(ladder["missing"], serde_json::json!([{"resolver": "mergiraf", "reason": "skipped"}]));
    assert_eq!(ladder["tools"]["mergiraf"], serde_json::Value::Null);
    let (major, minor, patch) = git2::Version::get().libgit2_version();
    assert_eq!(ladder["tools"]["libgit2"], format!("{major}.{minor}.{patch}"));
    assert!(ladder["tools"]["python"].as_str().unwrap().starts_with("Python 3."), "{ladder}");
    assert_eq!(ladder["tools"]["pytest"], mergeforge::pytest::venv::pytest_version());
    assert_eq!(report["ladder"], *ladder, "--json reports the manifest's ladder");
    let command: Vec<&str> = manifest["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(command.contains(&"--no-mergiraf"), "the recorded command reproduces the skip: {command:?}");
    for task in manifest["tasks"].as_array().unwrap() {
        let solution =
            read_json(&out.join("mergeforge/1.0.0/tasks").join(task["id"].as_str().unwrap()).join("solution.json"));
        assert_eq!(solution["validation"]["baselines"]["mergiraf"], serde_json::json!({"available": false}));
    }

    // The table says it in so many words (the second run reproduces the version).
    let summary = run(false);
    let line = summary.lines().find(|l| l.starts_with("ladder:")).unwrap_or_else(|| panic!("{summary}"));
    assert!(line.contains("INCOMPLETE") && line.contains("mergiraf skipped (--no-mergiraf)"), "{line}");
}

#[test]
fn gen_tasks_installs_mergiraf_with_cargo_once_when_none_is_found() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fake_cargo(
        &bin,
        "mkdir -p \"$root/bin\"\nprintf '#!/bin/sh\\necho mergiraf 0.20.0\\n' > \"$root/bin/mergiraf\"\nchmod +x \"$root/bin/mergiraf\"",
    );
    let cache = work.path().join("cache");
    let path = path_without_mergiraf(Some(&bin));

    let output = gen_tasks_nowhere(&path, &cache, &[]);
    let text = stderr(&output);
    assert!(text.contains(&format!("installing mergiraf {PINNED}")), "{text}");
    assert!(text.contains(&format!("installed mergiraf {PINNED}")), "{text}");
    // The install succeeded; the run then stops at the substrate.
    assert!(error_line(&text).contains("no usable substrate"), "{text}");
    let binary = install_root(&cache).join("bin/mergiraf");
    assert!(binary.is_file(), "{} missing", binary.display());
    let log = std::fs::read_to_string(cache.join(format!("tools/mergiraf-{PINNED}.log"))).unwrap();
    assert!(log.contains("Compiling mergiraf"), "cargo's output goes to the log: {log}");
    let tools: Vec<String> = std::fs::read_dir(cache.join("tools"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(tools.is_empty(), "temporary install folders left: {tools:?}");

    // Installed once: the next run uses the cache, and --no-mergiraf never installs.
    let again = gen_tasks_nowhere(&path, &cache, &[]);
    assert!(!stderr(&again).contains("installing mergiraf"), "{}", stderr(&again));
    let skipped = gen_tasks_nowhere(&path, &work.path().join("other-cache"), &["--no-mergiraf"]);
    assert!(error_line(&stderr(&skipped)).contains("no usable substrate"), "{}", stderr(&skipped));
    assert_eq!(cargo_runs(&bin), 1);
}

#[test]
fn a_failed_install_is_one_line_naming_the_log_and_the_ways_out() {
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("bin");
    fake_cargo(&bin, "mkdir -p \"$root/bin\"\necho 'error: could not compile `tree-sitter`' >&2\nexit 101");
    let cache = work.path().join("cache");
    let output = gen_tasks_nowhere(&path_without_mergiraf(Some(&bin)), &cache, &[]);
    assert!(!output.status.success());
    let text = stderr(&output);
    let line = error_line(&text);
    let log = cache.join(format!("tools/mergiraf-{PINNED}.log"));
    assert!(line.contains("error: could not compile `tree-sitter`"), "{line}");
    assert!(line.contains(&log.display().to_string()), "{line}");
    assert!(line.contains("--no-mergiraf") && line.contains("PATH"), "{line}");
    assert!(!install_root(&cache).exists(), "a failed install looks installed");
    assert_eq!(
        std::fs::read_dir(cache.join("tools")).unwrap().filter(|e| e.as_ref().unwrap().path().is_dir()).count(),
        0
    );
}

#[test]
fn without_cargo_or_a_usable_mergiraf_the_error_says_what_to_do() {
    let work = tempfile::tempdir().unwrap();
    let empty = work.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let output = gen_tasks_nowhere(&OsString::from(&empty), &work.path().join("cache"), &[]);
    assert!(!output.status.success());
    let text = stderr(&output);
    let line = error_line(&text);
    assert!(line.contains("cargo") && line.contains("rustup.rs") && line.contains("--no-mergiraf"), "{line}");

    let not_a_binary: PathBuf = work.path().join("mergiraf.txt");
    std::fs::write(&not_a_binary, "not a program").unwrap();
    let output = mergeforge()
        .env("MERGEFORGE_MERGIRAF", &not_a_binary)
        .args(["gen-tasks", "--substrate", "/nonexistent/substrate", "--no-progress"])
        .output()
        .unwrap();
    let text = stderr(&output);
    let line = error_line(&text);
    assert!(line.contains("MERGEFORGE_MERGIRAF") && line.contains("--no-mergiraf"), "{line}");
}
