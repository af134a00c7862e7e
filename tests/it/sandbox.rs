//! The sandbox runner: timeouts kill the whole process group, the environment is
//! scrubbed, output is capped, and writes land in the private copy.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::load_scaled;
use mergeforge::sandbox::{run_in_fresh_tree, Limits, RunRequest};
use mergeforge::snapshot::Snapshot;

fn tree(files: &[(&str, &str)]) -> Snapshot {
    files.iter().map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes()))).collect()
}

fn run(files: &[(&str, &str)], argv: &[&str], limits: Limits) -> mergeforge::sandbox::RunOutput {
    let argv: Vec<String> = argv.iter().map(|s| s.to_string()).collect();
    run_in_fresh_tree(&RunRequest { tree: &tree(files), argv: &argv, env: &BTreeMap::new(), limits: &limits }).unwrap()
}

#[test]
fn timeout_kills_the_process_group() {
    let marker = tempfile::tempdir().unwrap();
    let survivor = marker.path().join("survived");
    // The shell starts a background child that would write a file after the timeout.
    let script = format!("(sleep 3; touch {}) & while true; do :; done", survivor.display());
    let started = Instant::now();
    let output = run(&[("x", "")], &["sh", "-c", &script], Limits::for_tests(Duration::from_millis(500)));
    assert!(output.timed_out);
    assert_eq!(output.exit_code, None);
    // The limit counts CPU time: the command used about its half second, and ended
    // within a wall bound stretched by the machine's load.
    assert!(output.cpu < Duration::from_secs(2), "timeout not enforced: {:?} of CPU", output.cpu);
    let bound = load_scaled(Duration::from_secs(3));
    assert!(started.elapsed() < bound, "timeout not enforced: {:?} (bound {bound:?})", started.elapsed());
    std::thread::sleep(Duration::from_millis(3500));
    assert!(!survivor.exists(), "a child of the timed-out command kept running");
}

#[test]
fn environment_is_scrubbed_and_home_is_private() {
    std::env::set_var("MERGEFORGE_TEST_SECRET", "hunter2");
    let output = run(&[("x", "")], &["sh", "-c", "env; pwd"], Limits::for_tests(Duration::from_secs(10)));
    assert_eq!(output.exit_code, Some(0));
    assert!(!output.output.contains("hunter2"), "caller environment leaked");
    let home = output.output.lines().find_map(|l| l.strip_prefix("HOME=")).unwrap().to_string();
    let pwd = output.output.lines().last().unwrap().to_string();
    assert!(home.contains("mergeforge-sandbox-"), "HOME={home}");
    assert!(pwd.starts_with(home.trim_end_matches("/home")), "work dir {pwd} not inside the sandbox of {home}");
}

#[test]
fn output_is_capped() {
    let mut limits = Limits::for_tests(Duration::from_secs(20));
    limits.output_cap_bytes = 1000;
    let output = run(&[("x", "")], &["sh", "-c", "yes | head -c 5000000"], limits);
    assert!(output.truncated);
    assert_eq!(output.output.len(), 1000);
}

#[test]
fn writes_stay_in_the_private_copy() {
    let files = [("data.txt", "original\n")];
    let output =
        run(&files, &["sh", "-c", "echo changed > data.txt; cat data.txt"], Limits::for_tests(Duration::from_secs(10)));
    assert_eq!(output.output.trim(), "changed");
    // The snapshot itself is untouched and a second run sees the original again.
    let again = run(&files, &["cat", "data.txt"], Limits::for_tests(Duration::from_secs(10)));
    assert_eq!(again.output.trim(), "original");
}

#[test]
fn network_is_cut_when_a_namespace_is_available() {
    if !mergeforge::sandbox::network_namespace_available() {
        eprintln!("no network namespace here: skipping");
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // bash's /dev/tcp connects without any other program; outside the sandbox it works.
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");
    let outside = std::process::Command::new("bash").args(["-c", &script]).output().unwrap();
    assert!(String::from_utf8_lossy(&outside.stdout).contains("connected"));
    let output = run(&[("x", "")], &["bash", "-c", &script], Limits::for_tests(Duration::from_secs(10)));
    assert_ne!(output.exit_code, Some(0), "connected to the host's loopback: {}", output.output);
    assert!(!output.output.contains("connected"), "{}", output.output);
    assert!(output.output.contains("/dev/tcp/127.0.0.1"), "bash did not try: {}", output.output);
}
