//! Episodes in process, on the committed sample: the workspace is a real git repository
//! mid-merge without the gold commit, tools behave as documented, bad paths are refused
//! without costing a step, and the reward components come out as specified.

use std::path::Path;

use crate::common::*;
use mergeforge::env::action::Action;
use mergeforge::env::dataset::TaskChoice;
use mergeforge::env::episode::Episode;
use mergeforge::env::observation::StepReply;
use mergeforge::env::{EnvConfig, Environment, ErrorCode, ResetRequest};

const SAMPLE: &str = "generated/mergeforge-embedded/1.0.0";
/// A divergent-edit task: `percent_change` multiplies by `100` (ours, right) against `101`.
const DIVERGE: &str = "calculator-c80129ecf3";

fn environment(work: &Path, max_steps: usize) -> Environment {
    let config = EnvConfig { max_steps, work_dir: work.to_path_buf(), ..EnvConfig::default() };
    Environment::new(&root().join(SAMPLE), config).expect("the sample loads")
}

fn reset(env: &Environment, task_id: &str) -> (Episode, StepReply) {
    let request = ResetRequest {
        choice: TaskChoice { task_id: Some(task_id.to_string()), ..TaskChoice::default() },
        episode_id: None,
    };
    env.reset(&request).expect("reset")
}

fn conflicted_path(reply: &StepReply) -> String {
    reply.observation.files.keys().next().expect("a conflicted file").clone()
}

fn gold_text(env: &Environment, task_id: &str, path: &str) -> String {
    let entry = env.tasks.tasks.iter().find(|t| t.task.id == task_id).unwrap();
    entry.solution.files.iter().find(|f| f.path == path).unwrap().gold.clone()
}

fn run(episode: &mut Episode, command: &str) -> String {
    let reply = episode.step(Action::Run { argv: vec!["/bin/sh".into(), "-c".into(), command.into()] }).expect("run");
    reply.observation.last_output
}

#[test]
fn reset_leaves_a_real_merge_in_progress_without_gold() {
    let work = tempfile::tempdir().unwrap();
    let env = environment(work.path(), 10);
    let (episode, reply) = reset(&env, DIVERGE);
    let repo = episode.repo().to_path_buf();
    assert!(repo.join(".git/MERGE_HEAD").is_file(), "MERGE_HEAD is set");
    let status = git(&repo, &["status", "--porcelain"]);
    assert!(status.lines().any(|l| l.starts_with("UU calculator.py")), "{status}");
    assert_eq!(git(&repo, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(), "ours");
    let mut branches: Vec<String> =
        git(&repo, &["for-each-ref", "--format=%(refname:short)"]).lines().map(str::to_string).collect();
    branches.sort();
    assert_eq!(branches, ["ours", "theirs"]);
    let gold_commit = &episode.task().solution.commits.gold;
    assert!(
        !git_output(&repo, &["cat-file", "-e", gold_commit]).status.success(),
        "the gold commit is not in the repository"
    );

    let obs = &reply.observation;
    assert_eq!(reply.reward, None);
    assert_eq!(obs.conflict_count, 1);
    assert!(obs.files["calculator.py"].contains("<<<<<<< "), "diff3 markers in the observed file");
    assert!(obs.files["calculator.py"].contains("||||||| "), "the base section is shown");
    assert!(!obs.syntax_valid && !obs.tests_passing && !obs.done);
    assert_eq!(obs.max_reward, 1.15);
    assert_eq!((obs.task.id.as_str(), &obs.task.level, &obs.task.family), (DIVERGE, &None, &None));

    // Two episodes of the same task never share files.
    let (other, _) = reset(&env, DIVERGE);
    assert_ne!(other.repo(), episode.repo());
    drop(episode);
    assert!(!repo.exists(), "a dropped episode removes its directory");
}

#[test]
fn tools_read_edit_and_run_in_the_repository() {
    let work = tempfile::tempdir().unwrap();
    let env = environment(work.path(), 20);
    let (mut episode, reply) = reset(&env, DIVERGE);
    let path = conflicted_path(&reply);
    let text = &reply.observation.files[&path];
    let first_marker = text.lines().position(|l| l.starts_with("<<<<<<<")).unwrap() + 1;

    let read = episode
        .step(Action::ReadFile { path: path.clone(), start_line: Some(first_marker), end_line: Some(first_marker + 1) })
        .unwrap();
    assert_eq!(
        read.observation.last_output,
        format!("{first_marker:>5}\t<<<<<<< HEAD\n{:>5}\t    return round_value((new - old) * 100 / abs(old), digits=precision)\n", first_marker + 1)
    );
    assert_eq!(read.reward, Some(0.0));

    // Replace the whole hunk (7 lines) with ours' line: one step resolves the file.
    let lines: Vec<&str> = text.lines().collect();
    let hunk = lines[first_marker - 1..first_marker + 6].join("\n") + "\n";
    let edit = episode
        .step(Action::EditFile {
            path: path.clone(),
            old_string: hunk,
            new_string: "    return round_value((new - old) * 100 / abs(old), digits=precision)\n".into(),
        })
        .unwrap();
    let c = edit.observation.reward_components;
    assert_eq!((c.markers, c.syntax, c.tests), (0.1, 0.05, 1.0), "{}", edit.observation.last_output);
    assert!(edit.done && edit.observation.tests_passing);
    assert_eq!(edit.observation.total_reward, edit.observation.max_reward);
    assert_eq!(std::fs::read_to_string(episode.repo().join(&path)).unwrap(), gold_text(&env, DIVERGE, &path));
    let after = episode.step(Action::Finish).unwrap_err();
    assert!(after.message.contains("episode is over"), "{}", after.message);
}

#[test]
fn bad_paths_are_refused_and_cost_no_step() {
    let work = tempfile::tempdir().unwrap();
    let env = environment(work.path(), 20);
    let (mut episode, _) = reset(&env, DIVERGE);
    assert!(run(&mut episode, "ln -s /etc/passwd leak.txt && printf '\\377\\376' > binary.txt && echo made")
        .contains("made"));
    let refused = [
        (
            Action::ReadFile { path: "../../etc/passwd".into(), start_line: None, end_line: None },
            "leaves the repository",
        ),
        (Action::ReadFile { path: "/etc/passwd".into(), start_line: None, end_line: None }, "is absolute"),
        (Action::ReadFile { path: "leak.txt".into(), start_line: None, end_line: None }, "outside the repository"),
        (Action::ReadFile { path: "binary.txt".into(), start_line: None, end_line: None }, "not UTF-8"),
        (Action::Resolve { file: ".git/config".into(), resolution: String::new() }, "inside .git"),
        (Action::Resolve { file: "leak.txt".into(), resolution: String::new() }, "outside the repository"),
        (Action::Resolve { file: "no/such/dir/x.py".into(), resolution: String::new() }, "does not exist"),
        (
            Action::EditFile {
                path: "calculator.py".into(),
                old_string: "no such text anywhere".into(),
                new_string: String::new(),
            },
            "does not occur",
        ),
        (
            Action::EditFile { path: "calculator.py".into(), old_string: "def ".into(), new_string: String::new() },
            "occurs",
        ),
    ];
    for (action, expected) in refused {
        let error = episode.step(action.clone()).unwrap_err();
        assert_eq!(error.code, ErrorCode::ValidationError, "{action:?}");
        assert!(error.message.contains(expected), "{action:?}: {}", error.message);
    }
    assert_eq!(episode.state().step_count, 1, "only the run counted");
}

#[test]
fn union_is_paid_for_markers_and_syntax_only() {
    let work = tempfile::tempdir().unwrap();
    let env = environment(work.path(), 10);
    let (mut episode, reply) = reset(&env, DIVERGE);
    let path = conflicted_path(&reply);
    let union =
        mergeforge::resolve::resolve_text(&mergeforge::resolve::UnionTheirsFirst, &reply.observation.files[&path]);
    // Theirs first: its wrong `return` wins, so the tests fail and the episode goes on.
    let step = episode.step(Action::Resolve { file: path.clone(), resolution: union }).unwrap();
    assert!(!step.done);
    let c = step.observation.reward_components;
    assert_eq!((c.markers, c.syntax, c.tests), (0.1, 0.05, 0.0), "{}", step.observation.last_output);

    // A broken file: −0.10 on every step it stays broken, markers already paid.
    let broken = episode.step(Action::Resolve { file: path.clone(), resolution: "def broken(:\n".into() }).unwrap();
    assert_eq!(broken.observation.reward_components.syntax, -0.1);
    assert!(!broken.observation.syntax_valid);
    let gold =
        episode.step(Action::Resolve { file: path.clone(), resolution: gold_text(&env, DIVERGE, &path) }).unwrap();
    let c = gold.observation.reward_components;
    assert_eq!((c.markers, c.syntax, c.tests), (0.0, 0.0, 1.0), "syntax is paid once");
    assert!(gold.done);
    assert_eq!(gold.observation.total_reward, mergeforge::env::reward::round(0.1 + 0.05 - 0.1 + 1.0));
}

#[test]
fn max_steps_and_finish_end_the_episode_and_markers_left_skip_the_tests() {
    let work = tempfile::tempdir().unwrap();
    let env = environment(work.path(), 2);
    let (mut episode, _) = reset(&env, DIVERGE);
    let first = episode
        .step(Action::ReadFile { path: "calculator.py".into(), start_line: Some(1), end_line: Some(1) })
        .unwrap();
    assert!(!first.done && first.observation.tests.is_none(), "markers left: tests not run yet");
    let second = episode
        .step(Action::ReadFile { path: "calculator.py".into(), start_line: Some(1), end_line: Some(1) })
        .unwrap();
    assert!(second.done, "max_steps = 2");
    // Markers remain: unsolved whatever the tests say, so they are not run.
    assert!(second.observation.tests.is_none() && !second.observation.tests_passing);
    assert!(second.observation.last_output.contains("tests not run: conflict markers remain"));
    assert_eq!(second.observation.total_reward, 0.0);

    let env = environment(work.path(), 10);
    let (mut episode, _) = reset(&env, DIVERGE);
    let finish = episode.step(Action::Finish).unwrap();
    assert!(finish.done && finish.observation.last_output.starts_with("finished"));
    assert_eq!(episode.state().step_count, 1);
}

#[test]
fn run_tests_reports_the_graded_ids_and_pays_nothing_by_itself() {
    let work = tempfile::tempdir().unwrap();
    let env = environment(work.path(), 10);
    let (mut episode, reply) = reset(&env, DIVERGE);
    let path = conflicted_path(&reply);
    // Markers left: run_tests grades the tree anyway; the conflicted module cannot import.
    let marked = episode.step(Action::RunTests).unwrap();
    let out = &marked.observation.last_output;
    assert!(out.starts_with("tests fail") && out.contains("\nFAILED tests/"), "{out}");
    assert!(!marked.done && !marked.observation.tests_passing && marked.observation.tests.is_some(), "{out}");
    assert_eq!(marked.reward, Some(0.0), "an observation: no reward");
    // Only the summary and the ids: nothing of the run's output (which would show gold's tests).
    assert!(out.lines().skip(1).all(|l| l.starts_with("PASSED ") || l.starts_with("FAILED ")), "{out}");
    // A wrong resolution (theirs' line) without markers: graded at once; run_tests reports again.
    let theirs = mergeforge::resolve::resolve_text(&mergeforge::resolve::TakeTheirs, &reply.observation.files[&path]);
    let wrong = episode.step(Action::Resolve { file: path.clone(), resolution: theirs }).unwrap();
    assert!(!wrong.done && !wrong.observation.tests_passing, "{}", wrong.observation.last_output);
    let again = episode.step(Action::RunTests).unwrap();
    let out = &again.observation.last_output;
    assert!(out.contains("\nPASSED tests/") && out.contains("\nFAILED tests/test_calculator.py::"), "{out}");
    assert_eq!(again.reward, Some(0.0));
    assert_eq!(again.observation.total_reward, wrong.observation.total_reward);
    let gold = episode.step(Action::Resolve { file: path.clone(), resolution: gold_text(&env, DIVERGE, &path) });
    let gold = gold.unwrap();
    assert!(gold.done && gold.observation.tests_passing);
    assert_eq!(gold.observation.total_reward, gold.observation.max_reward, "run_tests cost nothing");
}

fn keys(value: &serde_json::Value) -> Vec<String> {
    let mut keys: Vec<String> = value.as_object().expect("an object").keys().cloned().collect();
    keys.sort();
    keys
}

fn allowed(lists: &[&[&str]]) -> Vec<String> {
    let mut keys: Vec<String> = lists.iter().flat_map(|l| l.iter().map(|k| k.to_string())).collect();
    keys.sort();
    keys
}

#[test]
fn observations_carry_the_allowlisted_keys_and_no_label_unless_revealed() {
    use mergeforge::env::observation::{OBSERVATION_KEYS, REVEALED_KEYS, STATE_KEYS, TASK_KEYS};
    let work = tempfile::tempdir().unwrap();
    for reveal in [false, true] {
        let config =
            EnvConfig { reveal_task_info: reveal, work_dir: work.path().to_path_buf(), ..EnvConfig::default() };
        let env = Environment::new(&root().join(SAMPLE), config).expect("the sample loads");
        let (mut episode, reset) = reset(&env, DIVERGE);
        let step = episode
            .step(Action::ReadFile { path: "calculator.py".into(), start_line: Some(1), end_line: Some(1) })
            .unwrap();
        let finish = episode.step(Action::Finish).unwrap();
        let revealed: &[&str] = if reveal { REVEALED_KEYS } else { &[] };
        for reply in [&reset, &step, &finish] {
            let observation = serde_json::to_value(&reply.observation).unwrap();
            assert_eq!(keys(&observation), allowed(&[OBSERVATION_KEYS]), "reveal {reveal}: {observation}");
            assert_eq!(keys(&observation["task"]), allowed(&[TASK_KEYS, revealed]), "reveal {reveal}");
        }
        let state = serde_json::to_value(episode.state()).unwrap();
        assert_eq!(keys(&state), allowed(&[STATE_KEYS, revealed]), "reveal {reveal}: {state}");
        if reveal {
            assert_eq!(reset.observation.task.level.as_deref(), Some("easy"));
            assert_eq!(reset.observation.task.family.as_deref(), Some("divergent-edit"));
        }
    }
}

/// Plays gold file by file (from `entry`'s solution), then finishes if not done; returns
/// the last reply and every step's output.
fn play_gold(entry: std::sync::Arc<mergeforge::env::dataset::TaskEntry>, env: &Environment) -> (StepReply, String) {
    let (mut episode, _) = Episode::start(entry.clone(), env.settings.clone(), None).expect("start");
    let mut outputs = String::new();
    for file in &entry.solution.files {
        let reply = episode.step(Action::Resolve { file: file.path.clone(), resolution: file.gold.clone() }).unwrap();
        outputs.push_str(&reply.observation.last_output);
        if reply.done {
            return (reply, outputs);
        }
    }
    let reply = episode.step(Action::Finish).unwrap();
    outputs.push_str(&reply.observation.last_output);
    (reply, outputs)
}

#[test]
fn the_grader_requires_the_gold_tests_recorded_at_generation_without_running_gold() {
    let work = tempfile::tempdir().unwrap();
    let env = environment(work.path(), 10);
    let entry = env.tasks.tasks.iter().find(|t| t.task.id == DIVERGE).unwrap();
    let check = entry.solution.grader.clone().expect("the sample's tasks carry their grader check");
    assert!(!check.gold_passing.is_empty());
    assert!(play_gold(entry.clone(), &env).0.observation.tests_passing, "gold solves its task");
    assert!(entry.gold.cached().unwrap().run.is_none(), "gold's tests came from solution.json, not from a run");

    // The same task with one more required id that no run reports: gold no longer passes,
    // so the recorded ids (not the exit status) are what the grader checks.
    let mut solution = entry.solution.clone();
    solution.grader.as_mut().unwrap().gold_passing.push("tests/test_calculator.py::test_not_there".into());
    let doctored = std::sync::Arc::new(mergeforge::env::dataset::TaskEntry {
        task: entry.task.clone(),
        solution,
        bundle: entry.bundle.clone(),
        gold: Default::default(),
    });
    let (reply, outputs) = play_gold(doctored, &env);
    assert!(!reply.observation.tests_passing, "{outputs}");
    assert!(outputs.contains("1 required test(s) did not pass"), "{outputs}");
}

/// The reward pays exactly when the one judgement says solved: on a task whose conflicts
/// include a test file, a resolution with gold's code and gold's test file minus one
/// test passes gold's tests (restored over the tree) but drops a test, so it does not
/// solve the task: `--reward binary` pays nothing and the observation names the test.
/// With gold's test file it pays 1.
#[test]
fn a_test_file_resolution_that_drops_a_test_earns_nothing_under_binary_reward() {
    const TASK: &str = "calculator-29456db8a2";
    const TESTS: &str = "tests/test_calculator.py";
    let work = tempfile::tempdir().unwrap();
    let config = EnvConfig {
        max_steps: 10,
        work_dir: work.path().to_path_buf(),
        weights: mergeforge::env::reward::RewardWeights::binary(),
        ..EnvConfig::default()
    };
    let env = Environment::new(&root().join(SAMPLE), config).expect("the sample loads");
    let (mut episode, _) = reset(&env, TASK);
    let gold_tests = gold_text(&env, TASK, TESTS);
    let last = gold_tests.rfind("\ndef test_").expect("a test function");
    let dropped_name = gold_tests[last + 5..].split('(').next().unwrap().to_string();
    let dropped = gold_tests[..last + 1].to_string();

    let code = Action::Resolve { file: "calculator.py".into(), resolution: gold_text(&env, TASK, "calculator.py") };
    episode.step(code).expect("resolve the code");
    let reply = episode.step(Action::Resolve { file: TESTS.into(), resolution: dropped }).expect("resolve the tests");
    let obs = &reply.observation;
    assert_eq!((obs.conflict_count, reply.reward, reply.done), (0, Some(0.0), false), "{}", obs.last_output);
    assert!(!obs.tests_passing, "{}", obs.last_output);
    assert!(
        obs.last_output.contains(&format!("{TESTS}::{dropped_name}")) && obs.last_output.contains("does not keep"),
        "the observation names the dropped test: {}",
        obs.last_output
    );

    let reply = episode.step(Action::Resolve { file: TESTS.into(), resolution: gold_tests }).expect("gold's tests");
    assert_eq!((reply.reward, reply.done), (Some(1.0), true), "{}", reply.observation.last_output);
}
