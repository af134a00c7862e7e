//! The committed sample does not depend on the machine's load: the calculator's tasks,
//! generated from an empty outcome cache while a busy thread per core keeps it loaded,
//! are the committed ones byte for byte. Time-outs are decided by CPU time
//! (`mergeforge::sandbox::cputime`), so a candidate near its time limit gets the
//! verdict it got on the machine that made the sample.

use std::time::Instant;

use crate::common::*;
use crate::sample::sample_version;

/// The substrate reproduced: the one whose candidate was once kept or rejected as
/// timed out depending on load.
const SUBSTRATE: &str = "calculator";

#[test]
#[ignore = "second tier: generates the calculator's tasks from an empty cache under load (minutes)"]
fn the_calculator_tasks_reproduce_from_an_empty_cache_under_load() {
    let version = sample_version();
    let manifest = read_json(&version.join("manifest.json"));
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let out = work.path().join("out");

    // The recorded command, restricted to the substrate, with an empty cache.
    let recorded: Vec<String> =
        manifest["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
    assert_eq!(&recorded[..2], ["mergeforge", "gen-tasks"]);
    let substrate_path = format!("substrates/{SUBSTRATE}");
    let mut args: Vec<&str> = recorded[1..].iter().map(String::as_str).collect();
    args.extend([
        "--substrate",
        &substrate_path,
        "--out",
        out.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--no-progress",
    ]);
    let load = CpuLoad::start(1);
    let started = Instant::now();
    let output = run_mergeforge(&args);
    eprintln!("gen-tasks for {SUBSTRATE} from an empty cache under load: {:?}", started.elapsed());
    drop(load);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));

    let fresh = out.join("mergeforge-embedded").join(version.file_name().unwrap());
    let fresh_manifest = read_json(&fresh.join("manifest.json"));
    let expected: Vec<&str> = manifest["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["substrate"] == SUBSTRATE)
        .map(|t| t["id"].as_str().unwrap())
        .collect();
    assert!(!expected.is_empty(), "the committed sample has no {SUBSTRATE} task");
    let got: Vec<&str> =
        fresh_manifest["tasks"].as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(got, expected, "the run under load chose other tasks");
    for id in expected {
        let committed = read_tree(&version.join("tasks").join(id));
        let regenerated = read_tree(&fresh.join("tasks").join(id));
        assert_eq!(committed, regenerated, "task {id} differs from the committed sample");
    }
}
