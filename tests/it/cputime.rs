//! Time-outs decided by CPU time (`mergeforge::sandbox::cputime`): a run's verdict does
//! not depend on how busy the machine is.
//!
//! Cases are data: `tests/data/cputime/substrate/` is a tiny substrate whose one test
//! calls `spin`; `cases/<case>/edit.json` gives `spin` a body (see `common::edited`):
//! a busy loop until the process has used some CPU seconds, or a sleep, and
//! `expected.txt` says `passes` or `times out` under the [`LIMIT`], and for a time-out
//! what decided it: `by its CPU time` (before the wall backstop) or `by the wall
//! backstop`. Every case runs while busy threads (two per core) keep every core loaded,
//! through both ways a test command runs: a new sandboxed process, and a fork-server
//! child. A case that passes must have taken longer than its limit on the wall clock: a
//! wall-clock decision would have timed it out.

use std::collections::BTreeMap;
use std::time::Duration;

use mergeforge::pytest::forkserver::{ForkServerPool, RunHooks, ServerSpec};
use mergeforge::pytest::venv::{ensure_venv, user_cache_dir};
use mergeforge::sandbox::cputime::wall_backstop;
use mergeforge::sandbox::{run_in_fresh_tree, Limits, RunOutput, RunRequest};
use mergeforge::snapshot::Snapshot;

use crate::common::{edited, root, snapshot_of, CpuLoad};

/// The time limit of every run: a CPU budget of a few seconds, so that the test costs
/// seconds, with its wall backstop at three times that.
const LIMIT: Duration = Duration::from_secs(3);

/// pytest's arguments after `python -m pytest`.
const PYTEST_ARGS: [&str; 4] = ["-q", "-p", "no:cacheprovider", "tests/"];

/// How a case's run ended, as `expected.txt` says it.
fn verdict(output: &RunOutput) -> &'static str {
    match (output.timed_out, output.exit_code) {
        (true, _) => "times out",
        (false, Some(0)) => "passes",
        (false, _) => "fails",
    }
}

/// `output`, the run of case `name` by `way`, ended as `expected` (`expected.txt`): a
/// pass used less CPU time than [`LIMIT`] but more wall time; a time-out by CPU time
/// used the whole budget; one by the wall backstop ended there, with CPU time to spare.
fn check(name: &str, way: &str, expected: &str, output: &RunOutput) {
    let context = format!("{name} ({way}: {:?} of CPU time, {:?} of wall time)", output.cpu, output.duration);
    eprintln!("{context}: {}", verdict(output));
    let mut lines = expected.lines();
    assert_eq!(Some(verdict(output)), lines.next(), "{context}: {}", output.output);
    let backstop = wall_backstop(LIMIT);
    match lines.next() {
        None => {
            assert!(output.cpu < LIMIT, "{context}: passed over its CPU budget");
            assert!(
                output.duration > LIMIT,
                "{context}: the load did not slow the run past its {LIMIT:?} limit, so this case shows nothing \
                 (does this host share its cores between processes?)"
            );
        }
        Some("by its CPU time") => assert!(output.cpu >= LIMIT, "{context}: killed before its CPU budget was spent"),
        Some("by the wall backstop") => {
            assert!(output.cpu < LIMIT, "{context}: used its CPU budget");
            // Its clock leaves out the time the run waited for a CPU (start-up, under
            // load): it ends some seconds after the backstop on the wall, not an hour.
            let window = backstop..backstop * 2;
            assert!(window.contains(&output.duration), "{context}: not killed at the wall backstop");
        }
        Some(other) => panic!("{name}: expected.txt: unknown second line {other:?}"),
    }
}

/// Second tier (first-tier sibling: the unit tests of sandbox::cputime).
mod second_tier {
    use super::*;

    #[test]
    #[ignore = "second tier: busy-loops both cores for a minute"]
    fn cpu_time_decides_time_outs_under_load() {
        let data = root().join("tests/data/cputime");
        let head = snapshot_of(&data.join("substrate"));
        let python = ensure_venv(&user_cache_dir(), &[]).expect("venv");
        let limits = Limits::for_tests(LIMIT);
        let interpreter = python.interpreter.to_string_lossy().into_owned();
        let argv: Vec<String> =
            [interpreter.as_str(), "-m", "pytest"].into_iter().chain(PYTEST_ARGS).map(String::from).collect();
        let env = BTreeMap::new();
        let pool = ForkServerPool::new(ServerSpec {
            head: head.clone(),
            python: interpreter.clone(),
            pytest_args: PYTEST_ARGS.iter().map(|a| a.to_string()).collect(),
            env: env.clone(),
            limits: limits.clone(),
            modules: Vec::new(),
        });
        // The server warms up before the load starts (its warm-up is no verdict).
        let warm = pool.run(&head, &RunHooks::swapped(), LIMIT).expect("HEAD served");
        assert_eq!(verdict(&warm), "passes", "HEAD: {}", warm.output);

        let mut cases: Vec<_> = std::fs::read_dir(data.join("cases")).unwrap().map(|e| e.unwrap().path()).collect();
        cases.sort();
        assert!(cases.len() >= 3, "time-limit cases missing");
        // Two per core: with one, a run gets two thirds of a core on an otherwise idle
        // machine, which stretches the 2 s case to barely 3 s.
        let load = CpuLoad::start(2);
        for case in &cases {
            let name = case.file_name().unwrap().to_string_lossy().into_owned();
            let expected = std::fs::read_to_string(case.join("expected.txt")).unwrap();
            let tree: Snapshot = edited(&head, case);
            let fresh =
                run_in_fresh_tree(&RunRequest { tree: &tree, argv: &argv, env: &env, limits: &limits }).unwrap();
            check(&name, "a new process", &expected, &fresh);
            let served = pool.run(&tree, &RunHooks::swapped(), LIMIT);
            let served = served.unwrap_or_else(|| panic!("{name}: the fork server refused the tree"));
            check(&name, "a fork-server child", &expected, &served);
        }
        drop(load);
    }
}
