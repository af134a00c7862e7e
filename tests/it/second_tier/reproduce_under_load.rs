//! The committed sample does not depend on the machine's load: the calculator's tasks,
//! generated from an empty outcome cache while a busy thread per core keeps it loaded,
//! are the committed ones byte for byte. Time-outs are decided by CPU time
//! (`mergeforge::sandbox::cputime`), so a candidate near its time limit gets the
//! verdict it got on the machine that made the sample.

use std::time::Instant;

use crate::common::*;
use crate::sample::{assert_reproduced, recorded_command, sample_version};

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
    let args = recorded_command(&manifest, SUBSTRATE, &out, &cache);
    let load = CpuLoad::start(1);
    let started = Instant::now();
    let output = run_mergeforge(&args.iter().map(String::as_str).collect::<Vec<_>>());
    eprintln!("gen-tasks for {SUBSTRATE} from an empty cache under load: {:?}", started.elapsed());
    drop(load);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_reproduced(&version, &out, SUBSTRATE, "the run under load");
}
