//! The committed sample dataset under `generated/`: a reduced run reproduces its files
//! byte for byte, and every task holds up with plain git and pytest.

use std::path::{Path, PathBuf};

use crate::common::*;

/// The committed sample version folder (the only version of mergeforge-embedded).
pub(crate) fn sample_version() -> PathBuf {
    let dataset = root().join("generated/mergeforge-embedded");
    let mut versions: Vec<PathBuf> = std::fs::read_dir(&dataset)
        .expect("generated/mergeforge-embedded exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("manifest.json").is_file())
        .collect();
    versions.sort();
    versions.pop().expect("a committed sample version")
}

/// The committed sample's recorded command (its manifest's `command`), restricted to
/// `substrate` and writing into `out` with the outcome cache `cache`.
pub(crate) fn recorded_command(manifest: &serde_json::Value, substrate: &str, out: &Path, cache: &Path) -> Vec<String> {
    let recorded: Vec<String> =
        manifest["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
    assert_eq!(&recorded[..2], ["mergeforge", "gen-tasks"]);
    let mut args = recorded[1..].to_vec();
    args.extend(["--substrate".into(), format!("substrates/{substrate}")]);
    args.extend(["--out".into(), out.to_str().unwrap().into(), "--cache".into(), cache.to_str().unwrap().into()]);
    args.push("--no-progress".into());
    args
}

/// Asserts that the version a run of [`recorded_command`] wrote under `out` holds the
/// committed sample's tasks of `substrate`, in the same order and byte for byte (`run`
/// names the run in the messages); returns the fresh version's manifest.
pub(crate) fn assert_reproduced(version: &Path, out: &Path, substrate: &str, run: &str) -> serde_json::Value {
    let manifest = read_json(&version.join("manifest.json"));
    let fresh = out.join("mergeforge-embedded").join(version.file_name().unwrap());
    let fresh_manifest = read_json(&fresh.join("manifest.json"));
    let ids = |manifest: &serde_json::Value| -> Vec<String> {
        manifest["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["substrate"] == substrate)
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect()
    };
    let expected = ids(&manifest);
    assert!(!expected.is_empty(), "the committed sample has no {substrate} task");
    let all: Vec<&str> =
        fresh_manifest["tasks"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(all, expected, "{run} chose other tasks");
    for id in expected {
        let committed = read_tree(&version.join("tasks").join(&id));
        let regenerated = read_tree(&fresh.join("tasks").join(&id));
        assert_eq!(committed, regenerated, "task {id} differs from the committed sample");
    }
    fresh_manifest
}

#[test]
fn a_reduced_run_reproduces_the_committed_sample() {
    let version = sample_version();
    let manifest = read_json(&version.join("manifest.json"));
    let work = tempfile::tempdir().unwrap();
    // A private copy of the committed outcome cache: the run may add to it.
    let cache = work.path().join("cache");
    copy_dir(&root().join("generated/.mergeforge-cache"), &cache);
    let out = work.path().join("out");

    // The recorded command, restricted to one substrate.
    let substrate = manifest["substrates"].as_array().unwrap().iter().find(|s| s["tasks"].as_u64() > Some(0)).unwrap();
    let name = substrate["name"].as_str().unwrap();
    let args = recorded_command(&manifest, name, &out, &cache);
    let output = run_mergeforge(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    let fresh_manifest = assert_reproduced(&version, &out, name, "the reduced run");
    // An embedded substrate is the generator's own code: its licence and source are recorded.
    let entry = &fresh_manifest["substrates"][0];
    assert_eq!(entry["license"], env!("CARGO_PKG_LICENSE"), "{entry}");
    assert_eq!(entry["source"], format!("mergeforge: substrates/{name}"), "{entry}");
}

/// The first task of each family and of each substrate of the committed sample, in
/// manifest order: the first tier's sibling of the second tier's check of every task
/// (`second_tier::sample::every_committed_task_verifies_with_plain_git_and_pytest`).
#[test]
fn one_task_per_family_and_substrate_verifies_with_plain_git_and_pytest() {
    let version = sample_version();
    let manifest = read_json(&version.join("manifest.json"));
    let tasks = manifest["tasks"].as_array().unwrap();
    let (mut families, mut substrates) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
    let ids: Vec<String> = tasks
        .iter()
        .filter(|t| {
            let new_family = families.insert(t["family"].to_string());
            substrates.insert(t["substrate"].to_string()) | new_family
        })
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    assert!(families.len() >= 3 && substrates.len() >= 2, "{families:?} {substrates:?}");
    assert!(ids.len() <= families.len() + substrates.len(), "{ids:?}");
    venv_python();
    let failed = verify_tasks_with_git(&version, &ids);
    assert!(failed.is_empty(), "tasks that do not verify with plain git and pytest: {failed:?}");
}

#[test]
fn the_sample_meets_the_coverage_bar() {
    let manifest = read_json(&sample_version().join("manifest.json"));
    let counts = &manifest["counts"];
    let total = counts["tasks"].as_u64().unwrap();
    let hard = counts["by_level"]["hard"].as_u64().unwrap();
    assert!(total >= 60, "{total} tasks");
    // Every level is present. The hard share fell from 41% to 6% when the refactoring-
    // aware rung made rename and move tasks medium; contract changes (issue 36) are what
    // is to restore it, so the bar here is only that hard tasks remain.
    assert!(hard > 0, "{hard} hard of {total}");
    for level in ["easy", "medium"] {
        assert!(counts["by_level"][level].as_u64().unwrap() > 0, "no {level} task");
    }
    assert!(counts["by_family"].as_object().unwrap().len() >= 3);
    for substrate in manifest["substrates"].as_array().unwrap() {
        assert!(substrate["tasks"].as_u64().unwrap() > 0, "no task from {}", substrate["name"]);
    }
}

#[test]
fn every_committed_task_passed_the_grader_check_at_generation() {
    let tasks = sample_version().join("tasks");
    let mut checked = 0;
    for dir in std::fs::read_dir(&tasks).unwrap() {
        let solution = read_json(&dir.unwrap().path().join("solution.json"));
        let check = &solution["grader"];
        assert!(!check["gold_passing"].as_array().unwrap().is_empty(), "{}: no gold tests", solution["id"]);
        let agents: Vec<&str> =
            check["agents"].as_array().unwrap().iter().map(|a| a["agent"].as_str().unwrap()).collect();
        assert_eq!(agents, mergeforge::env::agents::names(), "{}: every eval agent, in order", solution["id"]);
        for agent in check["agents"].as_array().unwrap() {
            let (share, solved) = (agent["share"].as_f64().unwrap(), agent["solved"] == true);
            if agent["agent"] == "gold" {
                assert!(solved && share == 1.0, "{}: gold {agent}", solution["id"]);
            } else {
                assert!(solved || share <= 0.25, "{}: {agent}", solution["id"]);
            }
        }
        checked += 1;
    }
    assert!(checked > 0);
}
