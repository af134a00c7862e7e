//! Bad input gets one clear line naming the thing, a non-zero exit, and nothing written.

use std::path::Path;

use crate::common::*;

fn gen(substrate: &Path, out: &Path, extra: &[&str]) -> (bool, String) {
    let mut args = vec![
        "gen-tasks",
        "--substrate",
        substrate.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-progress",
        "--per-cell",
        "1",
        "--candidates-per-cell",
        "4",
        "--families",
        "divergent-edit",
    ];
    args.extend_from_slice(extra);
    let output = run_mergeforge(&args);
    (output.status.success(), String::from_utf8_lossy(&output.stderr).into_owned())
}

fn no_version_written(out: &Path) {
    assert!(!out.join("mergeforge/1.0.0").exists(), "a version was written");
}

/// A tiny substrate: one module, one test file, given their texts.
fn tiny_substrate(dir: &Path, module: &str, test: &str) {
    std::fs::create_dir_all(dir.join("tests")).unwrap();
    std::fs::write(dir.join("shapes.py"), module).unwrap();
    std::fs::write(dir.join("tests/test_shapes.py"), test).unwrap();
    std::fs::write(
        dir.join("substrate.toml"),
        "test_command = [\"python\", \"-m\", \"pytest\", \"-q\", \"-p\", \"no:cacheprovider\", \"tests/\"]\nsource_dirs = [\".\"]\nexclude = [\"tests\"]\ntimeout_s = 60\n",
    )
    .unwrap();
}

const MODULE: &str = "def area(w, h):\n    if w < 0:\n        raise ValueError('negative')\n    return w * h + 0\n";
const TEST: &str = "import pytest\nfrom shapes import area\n\ndef test_area():\n    assert area(2, 3) == 6\n\ndef test_negative():\n    with pytest.raises(ValueError):\n        area(-1, 2)\n";

#[test]
fn missing_path() {
    let work = tempfile::tempdir().unwrap();
    let (ok, stderr) = gen(&work.path().join("nope"), &work.path().join("out"), &[]);
    assert!(!ok);
    assert!(stderr.contains("nope: no such substrate folder"), "{stderr}");
    assert!(stderr.contains("no usable substrate"), "{stderr}");
    no_version_written(&work.path().join("out"));
}

#[test]
fn folder_without_tests() {
    let work = tempfile::tempdir().unwrap();
    let sub = work.path().join("lib");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("shapes.py"), MODULE).unwrap();
    std::fs::write(sub.join("substrate.toml"), "source_dirs = [\".\"]\n").unwrap();
    let (ok, stderr) = gen(&sub, &work.path().join("out"), &[]);
    assert!(!ok);
    assert!(stderr.contains("no test files"), "{stderr}");
}

#[test]
fn folder_without_config_or_python() {
    let work = tempfile::tempdir().unwrap();
    let sub = work.path().join("lib");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(sub.join("README.md"), "hello\n").unwrap();
    let (ok, stderr) = gen(&sub, &work.path().join("out"), &[]);
    assert!(!ok);
    assert!(stderr.contains("lib: no Python files; a substrate is a Python project with a pytest suite"), "{stderr}");
}

#[test]
fn tests_failing_at_head_are_named() {
    let work = tempfile::tempdir().unwrap();
    let sub = work.path().join("broken");
    tiny_substrate(&sub, MODULE, &format!("{TEST}\ndef test_wrong():\n    assert area(1, 1) == 2\n"));
    let (ok, stderr) = gen(&sub, &work.path().join("out"), &[]);
    assert!(!ok);
    assert!(stderr.contains("tests fail at HEAD (tests/test_shapes.py::test_wrong)"), "{stderr}");
    no_version_written(&work.path().join("out"));
}

#[test]
fn a_substrate_python_that_does_not_run_is_named() {
    let work = tempfile::tempdir().unwrap();
    let sub = work.path().join("old");
    tiny_substrate(&sub, MODULE, TEST);
    let config = std::fs::read_to_string(sub.join("substrate.toml")).unwrap();
    std::fs::write(sub.join("substrate.toml"), format!("python = \"python2.4-nowhere\"\n{config}")).unwrap();
    let (ok, stderr) = gen(&sub, &work.path().join("out"), &[]);
    assert!(!ok);
    assert!(
        stderr.contains("python interpreter `python2.4-nowhere` (the substrate's `python`) not usable: install it or change `python` in substrate.toml"),
        "{stderr}"
    );
    no_version_written(&work.path().join("out"));
}

#[test]
fn syntax_error_and_non_utf8_files_are_skipped_with_a_warning() {
    let work = tempfile::tempdir().unwrap();
    let sub = work.path().join("mixed");
    tiny_substrate(&sub, MODULE, TEST);
    std::fs::write(sub.join("broken.py"), "def f(:\n").unwrap();
    std::fs::write(sub.join("latin.py"), b"x = '\xe9'\n").unwrap();
    let (ok, stderr) = gen(&sub, &work.path().join("out"), &[]);
    assert!(stderr.contains("broken.py"), "{stderr}");
    assert!(stderr.contains("latin.py is not UTF-8; skipped"), "{stderr}");
    assert!(ok, "{stderr}");
}

#[test]
fn empty_git_repository() {
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("empty");
    std::fs::create_dir_all(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    let (ok, stderr) = gen(&repo, &work.path().join("out"), &["--test-cmd", "python -m pytest"]);
    assert!(!ok);
    assert!(stderr.contains("empty repository"), "{stderr}");
}

#[test]
fn bad_flags_are_named() {
    let work = tempfile::tempdir().unwrap();
    let sub = root().join("substrates/calculator");
    let (ok, stderr) = gen(&sub, &work.path().join("out"), &["--version", "one"]);
    assert!(!ok);
    assert!(stderr.contains("--version one: not a semantic version"), "{stderr}");
    let (ok, stderr) = gen(&sub, &work.path().join("out"), &["--agent-network", "host"]);
    assert!(!ok);
    assert!(stderr.contains("give --agent-rung 'CMD' or drop --agent-network"), "{stderr}");
    let output = run_mergeforge(&["gen-tasks", "--families", "bogus", "--out", work.path().to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown family `bogus`"));
}
