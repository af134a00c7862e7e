//! `mergeforge onboard` and detection, one case folder per layout under
//! `tests/data/onboard/<case>/`: `project/` (a tiny project), `case.toml` (`reason`), and
//! `expected.toml` (what `onboard` prints) or `expected-error.txt` (a line its one-line
//! error contains). The interpreter's patch version is normalised (`Python 3.X.Y`), so a
//! case holds on any machine whose default interpreter fits it. `MERGEFORGE_BLESS=1`
//! writes `expected.toml` for review.

use std::path::Path;

use crate::common::*;

fn normalise(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = match line.find("Python 3.") {
            Some(at) => {
                let rest = &line[at + "Python 3.".len()..];
                let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
                let version = rest[..end].trim_end_matches('.');
                format!("{}Python 3.X.Y{}", &line[..at], &rest[version.len()..])
            }
            None => line.to_string(),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

fn check_case(case: &Path) -> Result<(), String> {
    let name = case.file_name().unwrap().to_string_lossy().into_owned();
    let reason = std::fs::read_to_string(case.join("case.toml")).map_err(|e| format!("{name}: case.toml: {e}"))?;
    assert!(reason.contains("reason = "), "{name}: case.toml has no reason");
    let output = run_mergeforge(&["onboard", case.join("project").to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let error_file = case.join("expected-error.txt");
    if error_file.exists() {
        let wanted = std::fs::read_to_string(&error_file).unwrap();
        if output.status.success() {
            return Err(format!("{name}: onboard succeeded, expected an error containing {wanted:?}"));
        }
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.len() != 1 || !lines[0].contains(wanted.trim()) {
            return Err(format!("{name}: expected one line containing {wanted:?}, got:\n{stderr}"));
        }
        return Ok(());
    }
    if !output.status.success() {
        return Err(format!("{name}: onboard failed:\n{stderr}"));
    }
    let expected_file = case.join("expected.toml");
    if std::env::var_os("MERGEFORGE_BLESS").is_some() {
        std::fs::write(&expected_file, &stdout).unwrap();
        return Ok(());
    }
    let expected = std::fs::read_to_string(&expected_file).map_err(|e| format!("{name}: expected.toml: {e}"))?;
    if normalise(&stdout) != normalise(&expected) {
        return Err(format!("{name}: onboard printed\n{stdout}\nexpected\n{expected}"));
    }
    // What onboard prints is a valid config that gen-tasks would read.
    let parsed: toml::Table = toml::from_str(&stdout).map_err(|e| format!("{name}: not TOML: {e}"))?;
    assert!(parsed.contains_key("test_command") && parsed.contains_key("source_dirs"), "{name}");
    Ok(())
}

#[test]
fn onboard_cases_print_the_expected_config() {
    let root = root().join("tests/data/onboard");
    let mut cases: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    assert!(cases.len() >= 6, "onboard cases missing under {}", root.display());
    let failures: Vec<String> = cases.iter().filter_map(|case| check_case(case).err()).collect();
    assert!(failures.is_empty(), "{} of {} cases differ:\n{}", failures.len(), cases.len(), failures.join("\n\n"));
}

/// A project without substrate.toml: a `test` extra naming a dependency the default
/// venv lacks (`six`), and a test failing at HEAD.
pub(crate) fn project_with_a_test_dependency(dir: &Path) {
    write_file(
        dir,
        "pyproject.toml",
        "[project]\nname = \"shapes\"\nversion = \"0.1\"\n\n[project.optional-dependencies]\ntest = [\"six\"]\n",
    );
    write_file(
        dir,
        "shapes/__init__.py",
        "def area(w, h):\n    if w < 0:\n        raise ValueError(\"negative\")\n    return w * h\n\n\n\
         def perimeter(w, h):\n    if w < 0 or h < 0:\n        raise ValueError(\"negative\")\n    return 2 * (w + h)\n",
    );
    write_file(
        dir,
        "tests/test_shapes.py",
        "import pytest\nimport six\nfrom shapes import area, perimeter\n\n\ndef test_area():\n    assert area(2, 3) == 6\n\n\n\
         def test_negative():\n    with pytest.raises(ValueError):\n        area(-1, 2)\n\n\n\
         def test_perimeter():\n    assert perimeter(2, 3) == 10\n\n\n\
         def test_perimeter_negative():\n    with pytest.raises(ValueError):\n        perimeter(1, -2)\n\n\n\
         def test_six():\n    assert six.PY3\n\n\n\
         def test_broken_at_head():\n    assert area(1, 1) == 2\n",
    );
}

#[test]
fn gen_tasks_detects_a_project_without_config_and_deselects_what_fails_at_head() {
    let work = tempfile::tempdir().unwrap();
    let (output, out) = generate_shapes(work.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("1 tests failing at HEAD deselected: tests/test_shapes.py::test_broken_at_head"),
        "{stderr}"
    );
    let manifest = read_json(&out.join("mergeforge/1.0.0/manifest.json"));
    let substrate = &manifest["substrates"][0];
    assert_eq!(substrate["name"], "shapes");
    assert_eq!(substrate["deselected"], serde_json::json!(["tests/test_shapes.py::test_broken_at_head"]));
    assert!(manifest["counts"]["tasks"].as_u64().unwrap() >= 1, "{manifest}");
}

#[test]
fn a_suite_failing_everywhere_is_one_line() {
    let work = tempfile::tempdir().unwrap();
    let project = work.path().join("broken");
    write_file(&project, "lib.py", "def f():\n    return 1\n");
    write_file(
        &project,
        "tests/test_lib.py",
        "from lib import f\n\ndef test_a():\n    assert f() == 2\n\ndef test_b():\n    assert f() == 3\n",
    );
    let output = run_mergeforge(&[
        "gen-tasks",
        "--substrate",
        project.to_str().unwrap(),
        "--out",
        work.path().join("out").to_str().unwrap(),
        "--no-progress",
        "--no-mergiraf",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(stderr.contains("the suite fails at HEAD in 2 of 2 tests"), "{stderr}");
}

/// Generates a dataset from [`project_with_a_test_dependency`] into `out`; returns the
/// version folder.
/// `gen-tasks` without a config on the test-dependency project, into `work/out`: its
/// output and the output folder.
fn generate_shapes(work: &Path) -> (std::process::Output, std::path::PathBuf) {
    let project = work.join("shapes");
    project_with_a_test_dependency(&project);
    let out = work.join("out");
    let output = run_mergeforge(&[
        "gen-tasks",
        "--substrate",
        project.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--no-progress",
        "--no-mergiraf",
        "--families",
        "divergent-edit",
        "--per-cell",
        "1",
        "--candidates-per-cell",
        "6",
    ]);
    (output, out)
}

fn dataset_with_a_test_dependency(work: &Path) -> std::path::PathBuf {
    let (output, out) = generate_shapes(work);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    out.join("mergeforge/1.0.0")
}

mod second_tier {
    use super::*;

    #[test]
    #[ignore = "second tier: installs a test dependency and serves its dataset, about 15 s"]
    fn a_dataset_with_a_test_dependency_is_served_and_solved_by_gold() {
        let work = tempfile::tempdir().unwrap();
        let version = dataset_with_a_test_dependency(work.path());
        let manifest = read_json(&version.join("manifest.json"));
        let id = manifest["tasks"][0]["id"].as_str().unwrap().to_string();
        let task = read_json(&version.join("tasks").join(&id).join("task.json"));
        assert_eq!(task["schema"], "mergeforge.task/3");
        let lock: Vec<&str> = task["python"]["lock"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        assert!(lock.iter().any(|d| d.starts_with("six==")), "six is in the lock: {lock:?}");
        assert!(lock.iter().any(|d| d.starts_with("pytest==")), "pytest is in the lock: {lock:?}");
        // The server's default venv has pytest alone: gold passes only on the task's own.
        let server = crate::env_server::Server::start_on(version.to_str().unwrap(), &[]);
        let python = python_with(&["openenv-core"]);
        let script = root().join("tests/data/env/gold_client.py");
        let stdout = python_stdout(
            &python,
            &[script.into_os_string(), format!("http://{}", server.addr).into(), version.clone().into_os_string()],
            "gold_client.py",
        );
        assert!(
            stdout.contains(&format!("gold: {id} solved")) && stdout.contains("all gold episodes solved"),
            "{stdout}"
        );
    }
}
