//! Hostile substrates, as data: `tests/data/hostile/<case>/` holds a test file
//! (`test_hostile.py`) and `case.toml` (`expect` = outcomes allowed, `timeout_s`,
//! `max_seconds` the run must end within). Each must end as a clean failed/timeout
//! outcome, with nothing written outside the sandbox and no process left behind.
//!
//! The harness gives every case `HOSTILE_PORT` (a listener it opened on 127.0.0.1),
//! `HOSTILE_OUTSIDE` (a path outside the sandbox) and `HOSTILE_NAME` (a file name the
//! case may try in `$HOME`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mergeforge::pytest::testrun::TestRunner;
use mergeforge::pytest::venv::ensure_venv;
use mergeforge::pytest::venv::user_cache_dir;
use mergeforge::snapshot::Snapshot;

#[derive(serde::Deserialize)]
struct Case {
    expect: Vec<String>,
    timeout_s: u64,
    max_seconds: u64,
}

fn run_case(dir: &Path, python: &mergeforge::pytest::venv::PythonEnv) {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let case: Case = toml::from_str(&std::fs::read_to_string(dir.join("case.toml")).unwrap())
        .unwrap_or_else(|e| panic!("{name}: case.toml: {e}"));
    let test = std::fs::read(dir.join("test_hostile.py")).unwrap_or_else(|e| panic!("{name}: {e}"));
    let tree: Snapshot = [("tests/test_hostile.py".to_string(), Arc::from(test.as_slice()))].into_iter().collect();

    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let outside_dir = tempfile::tempdir().unwrap();
    let outside = outside_dir.path().join("escaped.txt");
    let home_name = format!(".mergeforge-hostile-{name}-{}", std::process::id());
    let real_home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let mut env = BTreeMap::new();
    env.insert("HOSTILE_PORT".to_string(), listener.local_addr().unwrap().port().to_string());
    env.insert("HOSTILE_OUTSIDE".to_string(), outside.display().to_string());
    env.insert("HOSTILE_NAME".to_string(), home_name.clone());

    let command: Vec<String> =
        ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/"].iter().map(|s| s.to_string()).collect();
    let runner = TestRunner::new(&command, &env, Duration::from_secs(case.timeout_s), python, None);
    let started = Instant::now();
    let outcome = runner.run(&tree).unwrap_or_else(|e| panic!("{name}: the harness failed: {e:#}"));
    let elapsed = started.elapsed();

    let verdict = if outcome.timed_out {
        "timeout"
    } else if outcome.passed {
        "passed"
    } else {
        "failed"
    };
    assert!(
        case.expect.iter().any(|e| e == verdict),
        "{name}: ended as {verdict}, expected {:?} ({})",
        case.expect,
        outcome.last_line
    );
    assert!(elapsed <= Duration::from_secs(case.max_seconds), "{name}: took {elapsed:?}");
    assert!(!outside.exists(), "{name}: wrote outside the sandbox");
    assert!(!Path::new(&real_home).join(&home_name).exists(), "{name}: wrote into the real $HOME");
    assert!(listener.accept().is_err(), "{name}: reached the host's loopback listener");
}

#[test]
fn hostile_cases_are_contained() {
    let python = ensure_venv(&user_cache_dir(), &[]).unwrap();
    let root = crate::common::root().join("tests/data/hostile");
    let mut cases: Vec<_> =
        std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() >= 7, "hostile cases missing");
    for case in &cases {
        run_case(case, &python);
    }
    // Nothing a case started is still running.
    let survivors = std::process::Command::new("pgrep").args(["-f", "test_hostile"]).output().unwrap();
    assert!(survivors.stdout.is_empty(), "processes survived: {}", String::from_utf8_lossy(&survivors.stdout));
}
