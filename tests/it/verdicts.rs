//! Verdicts a selection cannot get wrong (`mergeforge::pytest::confirm`), flaky tests,
//! and the outcome cache's key.
//!
//! `tests/data/verdicts/substrate/` is a tiny substrate whose tests share state: a rate
//! cached with `lru_cache` by the first test that asks for it, a precision one test
//! sets for a later one, an account one test opens for the next test of its file; and a
//! command one test runs in a subprocess. `cases/<case>/` holds `edit.json` (see
//! `common::edited`) and `expected.json`: the selected ids, the confirmations the
//! verdict needs, and the verdict, which must be the full suite's. A case with
//! `"rejects": true` is judged as a tree whose failure rejects a candidate (a base, a
//! side that must pass: `TestRunner::run_deciding`). `flaky/edit.json` adds a test that
//! passes only the first time it runs.

use std::collections::BTreeMap;
use std::io::Write;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use mergeforge::forge::proposal::{Intent, Proposal};
use mergeforge::forge::{Candidate, Family};
use mergeforge::merge::MergeResult;
use mergeforge::pytest::confirm::Confirmation;
use mergeforge::pytest::select::Selection;
use mergeforge::pytest::testrun::{OutcomeCache, TestRunner};
use mergeforge::pytest::venv::{ensure_venv, installed_packages, package_list, user_cache_dir, PythonEnv};
use mergeforge::sandbox::{Limits, Profile};
use mergeforge::snapshot::Snapshot;
use mergeforge::validate::{self, Rejection};

use crate::common::{edited, read_json, root, snapshot_of};

fn data() -> PathBuf {
    root().join("tests/data/verdicts")
}

fn command() -> Vec<String> {
    ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/"].iter().map(|s| s.to_string()).collect()
}

fn python() -> PythonEnv {
    ensure_venv(&user_cache_dir(), &[]).expect("venv")
}

/// A runner of the substrate's command with `env`, caching under `cache/outcomes`.
fn runner(cache: &Path, env: &BTreeMap<String, String>) -> TestRunner {
    TestRunner::new(
        &command(),
        env,
        Duration::from_secs(30),
        &python(),
        Some(OutcomeCache::new(&cache.join("outcomes"))),
    )
}

/// A runner selecting tests by a coverage map of `head` (files run alone included).
fn selecting(head: &Snapshot, cache: &Path, env: &BTreeMap<String, String>) -> TestRunner {
    let runner = runner(cache, env);
    let map = runner.coverage_map(head, &cache.join("coverage")).expect("coverage map of the verdicts substrate");
    runner.with_selection(head.clone(), map)
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
}

#[test]
fn selected_verdicts_are_confirmed_into_the_full_suites() {
    let head = snapshot_of(&data().join("substrate"));
    let caches = tempfile::tempdir().unwrap();
    let selected = selecting(&head, &caches.path().join("coverage"), &BTreeMap::new());
    let full = runner(&caches.path().join("full"), &BTreeMap::new());
    let order: Vec<&str> = selected.order_dependent_tests().unwrap().iter().map(String::as_str).collect();
    assert_eq!(order, ["tests/test_d_format.py::test_fmt"], "fails alone at HEAD");
    assert_eq!(selected.stats().confirmations.files_run_alone, 7);

    let mut cases: Vec<PathBuf> = std::fs::read_dir(data().join("cases")).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    assert!(cases.len() >= 5);
    let mut trees = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let expected = read_json(&case.join("expected.json"));
        let tree = edited(&head, case);
        assert_eq!(selected.selection(&tree), Selection::Tests(strings(&expected["selected"])), "{name}: selection");
        let rejects = expected["rejects"].as_bool().unwrap_or(false);
        let outcome = if rejects { selected.run_deciding(&tree) } else { selected.run(&tree) }.unwrap();
        let confirmed: Vec<String> =
            selected.confirmations(&tree).unwrap().iter().map(|c| c.name().to_string()).collect();
        assert_eq!(confirmed, strings(&expected["confirmed"]), "{name}: confirmations");
        assert_eq!(outcome.passed, expected["passed"].as_bool().unwrap(), "{name}: verdict {outcome:?}");
        assert_eq!(outcome.failed_tests, strings(&expected["failed_tests"]), "{name}: failing tests");
        assert!(!outcome.timed_out, "{name}: timed out");
        let suite = full.run(&tree).unwrap();
        assert_eq!(
            (outcome.passed, &outcome.failed_tests, outcome.timed_out),
            (suite.passed, &suite.failed_tests, suite.timed_out),
            "{name}: the full suite says otherwise"
        );
        trees.push((name, tree, rejects, outcome));
    }
    let stats = selected.stats().confirmations;
    assert_eq!(stats.of(Confirmation::SelectedPass), 2);
    assert_eq!(stats.of(Confirmation::ScaledTimeout), 1);
    assert_eq!(stats.of(Confirmation::OrderDependent), 1);
    assert_eq!(stats.of(Confirmation::SelectedFail), 2);
    // cached-call (pass to fail), order-dependent and earlier-test-of-its-file (fail to
    // pass), slow-failure (time-out to fail).
    assert_eq!(stats.overturned, 4);
    assert_eq!(stats.overturned_of(Confirmation::SelectedFail), 1);

    // A second run over the same cache gives every verdict without running a test.
    let again = selecting(&head, &caches.path().join("coverage"), &BTreeMap::new());
    for (name, tree, rejects, outcome) in &trees {
        let cached = if *rejects { again.run_deciding(tree) } else { again.run(tree) }.unwrap();
        assert_eq!((cached.passed, &cached.failed_tests), (outcome.passed, &outcome.failed_tests), "{name}");
    }
    assert_eq!(again.stats().test_runs, 0, "the cache answered everything");
}

/// The trap the cached-call case sets, as a task: both sides must fail, and `ours`
/// passes its selected test while the full suite fails.
fn cached_call_candidate(head: &Snapshot) -> Candidate {
    let table = |eur: u32, usd: u32| {
        let text = std::str::from_utf8(&head["pkg/rates.py"]).unwrap();
        let line = format!("    table = {{\"eur\": {eur}, \"usd\": {usd}}}\n");
        let mut tree = head.clone();
        tree.insert(
            "pkg/rates.py".into(),
            text.replacen("    table = {\"eur\": 2, \"usd\": 3}\n", &line, 1).into_bytes().into(),
        );
        tree
    };
    let intent = |message: &str| Intent::one_commit(message.to_string(), Vec::new());
    Candidate {
        family: Family::StripRestore,
        proposal: Proposal {
            key: "verdicts:cached-call".into(),
            base: table(4, 5),
            ours: table(4, 3),
            theirs: table(2, 5),
            gold: head.clone(),
            mutations: Vec::new(),
            summary: "each side restores one rate".into(),
            ours_intent: intent("Restore the dollar rate"),
            theirs_intent: intent("Restore the euro rate"),
            origin: None,
            interactions: Vec::new(),
        },
    }
}

/// The candidate's conflicted tree and conflicted paths, merged as gen-tasks merges.
fn conflicted(candidate: &Candidate) -> (Snapshot, Vec<String>) {
    let scratch = tempfile::tempdir().unwrap();
    let repo = git2::Repository::init_bare(scratch.path()).unwrap();
    let commits = mergeforge::forge::commits::write_task_commits(&repo, candidate).unwrap();
    match mergeforge::merge::merge(&repo, commits.ours, commits.theirs).unwrap() {
        MergeResult::Conflicted { tree, files } => (tree, files.into_iter().map(|f| f.path).collect()),
        _ => panic!("the sides must conflict"),
    }
}

/// A validation as its record says it (durations and output lines are not recorded).
fn recorded(result: &Result<validate::Validation, Rejection>) -> serde_json::Value {
    match result {
        Ok(validation) => serde_json::to_value(validation).unwrap(),
        Err(rejection) => serde_json::json!({ "rejected": rejection.name() }),
    }
}

#[test]
fn a_side_passing_only_its_selection_is_judged_as_the_full_suite_judges_it() {
    let head = snapshot_of(&data().join("substrate"));
    let candidate = cached_call_candidate(&head);
    let (tree, paths) = conflicted(&candidate);
    let caches = tempfile::tempdir().unwrap();
    let selected = selecting(&head, &caches.path().join("coverage"), &BTreeMap::new());
    let full = runner(&caches.path().join("full"), &BTreeMap::new());
    assert_eq!(
        selected.selection(&candidate.ours),
        Selection::Tests(vec!["tests/test_a_rates.py::test_rates_are_known".to_string()])
    );

    let by_selection = validate::validate(&candidate, &tree, &paths, &selected).unwrap();
    let in_full = validate::validate(&candidate, &tree, &paths, &full).unwrap();
    assert_eq!(recorded(&by_selection), recorded(&in_full), "the modes judge the candidate differently");
    let validation = by_selection.expect("kept: both sides fail, gold passes");
    assert!(!validation.ours.passed, "ours fails in full: {:?}", validation.ours);
    assert_eq!(validation.ours.failed_tests, ["tests/test_b_convert.py::test_convert"]);
    assert_eq!(selected.confirmations(&candidate.ours), Some(vec![Confirmation::SelectedPass]));
    // Gold's pass was confirmed by a second run, in both modes.
    assert_eq!(selected.stats().confirmations.of(Confirmation::Repeat), 1);
    assert_eq!(full.stats().confirmations.of(Confirmation::Repeat), 1);
    assert!(selected.flaky_tests().is_empty());
}

#[test]
fn gold_flipping_between_two_runs_drops_the_candidate_as_flaky() {
    let head = snapshot_of(&data().join("substrate"));
    let mut candidate = cached_call_candidate(&head);
    candidate.proposal.gold = edited(&head, &data().join("flaky"));
    let (tree, paths) = conflicted(&candidate);
    let caches = tempfile::tempdir().unwrap();
    for mode in ["coverage", "full"] {
        // The test asks a counter outside the sandbox how often it ran (a unix socket:
        // the sandbox has its own network and its own /dev/shm).
        let counter = RunCounter::start();
        let env: BTreeMap<String, String> = [("FLAKY_COUNTER".to_string(), counter.path.display().to_string())].into();
        let cache = caches.path().join(mode);
        let runner = if mode == "coverage" { selecting(&head, &cache, &env) } else { runner(&cache, &env) };
        let verdict = validate::validate(&candidate, &tree, &paths, &runner).unwrap();
        assert_eq!(verdict.err(), Some(Rejection::Flaky), "{mode}");
        assert_eq!(runner.flaky_tests(), ["tests/test_f_flaky.py::test_counter"], "{mode}");
        assert_eq!(counter.count.load(Ordering::SeqCst), 2, "{mode}: gold ran twice");
    }
}

/// A unix socket that answers each connection with the number of earlier ones.
struct RunCounter {
    _dir: tempfile::TempDir,
    path: PathBuf,
    count: Arc<AtomicUsize>,
}

impl RunCounter {
    fn start() -> RunCounter {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("counter.sock");
        let listener = UnixListener::bind(&path).unwrap();
        let count = Arc::new(AtomicUsize::new(0));
        let counted = Arc::clone(&count);
        std::thread::spawn(move || {
            for mut stream in listener.incoming().map_while(Result::ok) {
                let earlier = counted.fetch_add(1, Ordering::SeqCst);
                let _ = stream.write_all(earlier.to_string().as_bytes());
            }
        });
        RunCounter { _dir: dir, path, count }
    }
}

#[test]
fn a_changed_sandbox_profile_or_package_set_misses_the_outcome_cache() {
    let head = snapshot_of(&data().join("substrate"));
    let python = python();
    let cache = tempfile::tempdir().unwrap();
    let runs = |timeout: u64, python: &PythonEnv| {
        let outcomes = OutcomeCache::new(cache.path());
        let runner =
            TestRunner::new(&command(), &BTreeMap::new(), Duration::from_secs(timeout), python, Some(outcomes));
        assert!(runner.run_full(&head).unwrap().passed);
        runner.stats().test_runs
    };
    assert_eq!(runs(30, &python), 1);
    assert_eq!(runs(30, &python), 0, "the same profile and packages: a cache hit");
    assert_eq!(runs(31, &python), 1, "another time limit is another sandbox profile");

    // The same venv with one more distribution installed.
    let venv = python.interpreter.parent().and_then(Path::parent).unwrap();
    let other_venv = tempfile::tempdir().unwrap();
    let site = other_venv.path().join("lib/python3/site-packages");
    for name in package_list(venv).iter().map(String::as_str).chain(["extra_dependency-1.0.dist-info"]) {
        std::fs::create_dir_all(site.join(name)).unwrap();
    }
    let upgraded = PythonEnv { packages: installed_packages(other_venv.path()), ..python.clone() };
    assert_ne!(upgraded.packages, python.packages);
    assert_eq!(runs(30, &upgraded), 1, "another package set");

    // The profile follows every limit the sandbox sets, and its confinement.
    let limits = Limits::for_tests(Duration::from_secs(30));
    let smaller = Limits { address_space_bytes: 1 << 30, ..limits.clone() };
    assert_ne!(Profile::of(&limits), Profile::of(&smaller));
    let profile = serde_json::to_value(Profile::of(&limits)).unwrap();
    assert_eq!(profile["rlimits"]["address-space"], 4u64 << 30);
    // The limit is CPU time now, but the same number under the same name: cached
    // outcomes (the committed sample's among them) keep their keys.
    assert_eq!(profile["wall_timeout_ms"], 30_000, "{profile}");
    if mergeforge::sandbox::confine::landlock_available() {
        let rules = profile["landlock"].to_string();
        assert!(rules.contains("/dev: read-and-write-files") && rules.contains("<sandbox>: all"), "{rules}");
    }
}
