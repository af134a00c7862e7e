//! Dataset format v2: what an agent may see and what it may not, byte-identical
//! versions from empty caches, the committed generated files (schemas, catalogue tables) equal the generated ones,
//! and v1 versions refused with one line.

use std::path::Path;

use crate::common::*;

/// Every task folder of the committed sample.
fn sample_task_dirs() -> Vec<std::path::PathBuf> {
    let dataset = root().join("generated/mergeforge-embedded");
    let mut dirs = Vec::new();
    for version in std::fs::read_dir(&dataset).unwrap() {
        let tasks = version.unwrap().path().join("tasks");
        for task in std::fs::read_dir(&tasks).unwrap() {
            dirs.push(task.unwrap().path());
        }
    }
    dirs.sort();
    dirs
}

#[test]
fn the_sample_leaks_no_answer() {
    let dirs = sample_task_dirs();
    assert!(!dirs.is_empty());
    for dir in dirs {
        let id = dir.file_name().unwrap().to_string_lossy().into_owned();
        let substrate = read_json(&dir.join("task.json"))["substrate"]["name"].as_str().unwrap().to_string();
        let hash = id.strip_prefix(&format!("{substrate}-")).unwrap_or_default();
        assert!(
            hash.len() == 10 && hash.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
            "{id}: an id is `<substrate>-<10 hex digits>`, naming nothing of how the task was made"
        );
        let bundle = std::fs::read(dir.join("repo.bundle")).unwrap();
        let header_end = bundle.windows(2).position(|w| w == b"\n\n").unwrap();
        let header = String::from_utf8_lossy(&bundle[..header_end]);
        assert!(!header.contains("gold"), "{id}: repo.bundle has a gold ref:\n{header}");
        let task_text = std::fs::read_to_string(dir.join("task.json")).unwrap();
        let task: serde_json::Value = serde_json::from_str(&task_text).unwrap();
        for key in ["summary", "files", "mutations", "validation", "branches", "edits_outside_conflicts"] {
            assert!(task.get(key).is_none(), "{id}: task.json has `{key}`");
        }
        let solution = read_json(&dir.join("solution.json"));
        for file in solution["files"].as_array().unwrap() {
            let gold = file["gold"].as_str().unwrap();
            assert!(gold.len() < 40 || !task_text.contains(gold), "{id}: task.json holds gold text");
        }
    }
}

#[test]
fn the_committed_generated_files_are_the_generated_ones() {
    let files = mergeforge::cli::generated_files().unwrap();
    assert!(
        files.iter().any(|(path, _)| path.starts_with("schemas"))
            && files.iter().any(|(path, _)| path.starts_with("docs"))
    );
    for (path, bytes) in files {
        let committed = std::fs::read(root().join(&path)).unwrap_or_default();
        assert!(committed == bytes, "{} differs from the generated file; run `mergeforge regenerate`", path.display());
    }
    let output = run_mergeforge(&["regenerate", "--check", "--root", root().to_str().unwrap()]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

#[test]
fn a_v1_version_is_refused_with_one_line() {
    let work = tempfile::tempdir().unwrap();
    let version = work.path().join("old/1.0.0");
    std::fs::create_dir_all(&version).unwrap();
    std::fs::write(version.join("manifest.json"), r#"{"schema": "mergeforge.manifest/1", "tasks": []}"#).unwrap();
    let dir = version.to_str().unwrap();
    let results = work.path().join("results.jsonl");
    std::fs::write(&results, "{\"task_id\": \"x\", \"success\": true}\n").unwrap();
    for args in [
        vec!["eval", "--dataset", dir, "--agent", "gold"],
        vec!["publish", "--dataset", dir, "--out", work.path().join("hf").to_str().unwrap()],
        vec!["serve", "--dataset", dir, "--addr", "127.0.0.1:0"],
        vec![
            "curriculum",
            "--dataset",
            dir,
            "--results",
            results.to_str().unwrap(),
            "--out",
            work.path().join("next").to_str().unwrap(),
        ],
    ] {
        let output = run_mergeforge(&args);
        assert!(!output.status.success(), "{args:?} accepted a v1 version");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("dataset format v1 is no longer read; regenerate it with mergeforge gen-tasks"),
            "{args:?}: {stderr}"
        );
        assert_eq!(stderr.trim().lines().count(), 1, "{args:?}: {stderr}");
    }
}

fn gen(out: &Path, cache: &Path) {
    let output = run_mergeforge(&[
        "gen-tasks",
        "--substrate",
        "substrates/calculator",
        "--families",
        "strip-restore,compose-edits",
        "--per-cell",
        "1",
        "--candidates-per-cell",
        "6",
        "--out",
        out.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--no-progress",
    ]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// Every committed sample task and solution reads into the typed records (typed
/// baselines, family, operators, levels) and writes back byte for byte.
#[test]
fn every_committed_sample_record_reads_back_to_the_same_bytes() {
    for dir in sample_task_dirs() {
        let task_bytes = std::fs::read(dir.join("task.json")).unwrap();
        let task: mergeforge::bundle::Task = serde_json::from_slice(&task_bytes).unwrap();
        assert!(mergeforge::bundle::task::to_json_bytes(&task).unwrap() == task_bytes, "{}", dir.display());
        let solution_bytes = std::fs::read(dir.join("solution.json")).unwrap();
        let solution: mergeforge::bundle::solution::Solution = serde_json::from_slice(&solution_bytes).unwrap();
        assert!(mergeforge::bundle::task::to_json_bytes(&solution).unwrap() == solution_bytes, "{}", dir.display());
    }
}

mod second_tier {
    use super::*;

    #[test]
    #[ignore = "second tier: generates twice from empty caches (a minute or two)"]
    fn two_runs_from_empty_caches_write_identical_versions() {
        let work = tempfile::tempdir().unwrap();
        let (a, b) = (work.path().join("a"), work.path().join("b"));
        gen(&a, &work.path().join("cache-a"));
        gen(&b, &work.path().join("cache-b"));
        let tree_a = read_tree(&a.join("mergeforge/1.0.0"));
        assert!(tree_a.keys().any(|k| k.ends_with("solution.bundle")), "no task written");
        assert_eq!(tree_a, read_tree(&b.join("mergeforge/1.0.0")), "the versions differ");
        // The durations stay in the outcome cache.
        assert!(work.path().join("cache-a/runs/mergeforge/1.0.0.json").is_file());
    }
}
