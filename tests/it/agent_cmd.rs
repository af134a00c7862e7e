//! `mergeforge eval --agent-cmd`: command-line agents run in each episode's repository
//! inside the sandbox, graded by the environment. Two scripted agents
//! (`tests/data/agents/`: `one_side.py` keeps one side of every hunk, `tokens.sh` calls
//! `mergeforge resolve --resolver tokens`) must solve exactly the tasks the built-in
//! agents of the same resolvers solve, per level; their transcripts and results file
//! are written and `curriculum` reads the results; a hung agent is killed at its
//! timeout; a passed-through variable reaches the agent and no record; and a probe
//! agent cannot write or read outside its episode nor reach the host's loopback
//! without `--agent-network host`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::Value;

const SAMPLE: &str = "generated/mergeforge-embedded/1.0.0";

fn agents_dir() -> PathBuf {
    root().join("tests/data/agents")
}

/// The first `per_level` tasks of each level of the sample (easy, medium, hard), by
/// manifest order.
fn tasks_per_level(per_level: usize) -> Vec<String> {
    let manifest = read_json(&root().join(SAMPLE).join("manifest.json"));
    let mut ids = Vec::new();
    for level in ["easy", "medium", "hard"] {
        let of_level = manifest["tasks"].as_array().unwrap().iter().filter(|t| t["level"] == level);
        ids.extend(of_level.take(per_level).map(|t| t["id"].as_str().unwrap().to_string()));
    }
    ids
}

/// Runs `eval --json` with `args` on `tasks`; its report.
fn eval(args: &[&str], tasks: &[String], env: &[(&str, &str)]) -> Value {
    let mut command = mergeforge();
    command.args(["eval", "--dataset", SAMPLE, "--json", "--jobs", "2"]).args(args);
    for id in tasks {
        command.args(["--task", id]);
    }
    command.envs(env.iter().copied());
    let output = command.output().expect("mergeforge runs");
    assert!(output.status.success(), "eval {args:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("eval --json prints JSON")
}

/// task id → solved, from an eval report.
fn solved(report: &Value) -> BTreeMap<String, bool> {
    let episodes = report["episodes"].as_array().unwrap();
    episodes.iter().map(|e| (e["task_id"].as_str().unwrap().to_string(), e["solved"] == true)).collect()
}

fn agent_ro() -> String {
    agents_dir().display().to_string()
}

#[test]
fn scripted_agents_solve_what_the_built_in_resolvers_solve() {
    let tasks = tasks_per_level(1);
    let work = tempfile::tempdir().unwrap();
    for (script, built_in) in [("one_side.py ours", "ours"), ("tokens.sh", "tokens")] {
        let interpreter = if script.ends_with("sh") { "sh" } else { "python3" };
        let command = format!("{interpreter} {}/{script}", agents_dir().display());
        let transcripts = work.path().join(built_in);
        let report = eval(
            &[
                "--agent-cmd",
                &command,
                "--agent-ro",
                &agent_ro(),
                "--agent-label",
                &format!("scripted-{built_in}"),
                "--transcripts",
                transcripts.to_str().unwrap(),
            ],
            &tasks,
            &[],
        );
        let reference = eval(&["--agent", built_in], &tasks, &[]);
        assert_eq!(solved(&report), solved(&reference), "{script} against the built-in {built_in}");
        for level in ["easy", "medium", "hard", "all"] {
            let (got, want) = (&report["totals"][level], &reference["totals"][level]);
            assert_eq!((&got["tasks"], &got["solved"]), (&want["tasks"], &want["solved"]), "{script}: {level}");
            let rate = got["solved"].as_f64().unwrap() / got["tasks"].as_f64().unwrap();
            assert!((got["solve_rate"].as_f64().unwrap() - rate).abs() < 1e-4, "{script}: {level}: {got}");
        }
        assert_eq!(report["agent"], format!("scripted-{built_in}"));
        assert!(report["totals_by_family"].as_object().is_some_and(|f| !f.is_empty()), "{report}");
        for episode in report["episodes"].as_array().unwrap() {
            let id = episode["task_id"].as_str().unwrap();
            assert!(episode["exit_code"] == 0 && episode["timed_out"] == false, "{script} on {id}: {episode}");
            let folder = transcripts.join(id);
            let stdout = std::fs::read_to_string(folder.join("stdout.txt")).unwrap();
            let diff = std::fs::read_to_string(folder.join("diff.patch")).unwrap();
            assert!(folder.join("stderr.txt").is_file(), "{id}");
            assert_eq!(read_json(&folder.join("episode.json"))["solved"], episode["solved"], "{id}");
            // `resolved calc.py with ours` (one_side.py), `calc.py: 2 resolved, 0 left` (resolve).
            let resolved = stdout.lines().any(|line| {
                line.starts_with("resolved ")
                    || line.split(": ").nth(1).is_some_and(|r| r.ends_with(" left") && !r.starts_with("0 "))
            });
            assert!(!resolved || diff.contains("\n-<<<<<<< "), "{script} on {id}: the diff removes markers:\n{diff}");
        }
    }
}

#[test]
fn the_results_file_feeds_curriculum() {
    let ids = tasks_per_level(1);
    let (easy, hard) = (ids[0].clone(), ids[2].clone());
    let work = tempfile::tempdir().unwrap();
    let results = work.path().join("results.jsonl");
    let command = format!("python3 {}/one_side.py ours", agents_dir().display());
    let results_arg = results.to_str().unwrap();
    let common =
        ["--agent-cmd", &command, "--agent-ro", &agent_ro(), "--agent-label", "one-side", "--results", results_arg];
    let first = eval(&[&common[..], &["--run", "r1"]].concat(), &[easy.clone(), hard.clone()], &[]);
    eval(&[&common[..], &["--run", "r2"]].concat(), std::slice::from_ref(&hard), &[]);

    let lines: Vec<Value> =
        std::fs::read_to_string(&results).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    for line in &lines {
        for key in
            ["task_id", "success", "reward", "agent", "run", "level", "family", "exit_code", "timed_out", "wall_s"]
        {
            assert!(line.get(key).is_some(), "{key} missing from {line}");
        }
        assert_eq!(line["agent"], "one-side");
        let episode = first["episodes"].as_array().unwrap().iter().find(|e| e["task_id"] == line["task_id"]).unwrap();
        assert_eq!(line["success"], episode["solved"], "{line}");
    }

    let out = work.path().join("out");
    let output = run_mergeforge(&[
        "curriculum",
        "--dataset",
        SAMPLE,
        "--results",
        results_arg,
        "--out",
        out.to_str().unwrap(),
        "--json",
        "--no-progress",
    ]);
    assert!(output.status.success(), "curriculum failed: {}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["attempts"], 3, "{report}");
    let version = PathBuf::from(report["version_dir"].as_str().unwrap());
    let record = |id: &str| read_json(&version.join("tasks").join(id).join("task.json"))["curriculum"].clone();
    let easy_solved = solved(&first)[&easy] as usize;
    assert_eq!((record(&easy)["attempts"].clone(), record(&easy)["successes"].clone()), (1.into(), easy_solved.into()));
    assert_eq!((record(&hard)["attempts"].clone(), record(&hard)["successes"].clone()), (2.into(), 0.into()));

    // The same run twice is one attempt counted twice: curriculum refuses it.
    eval(&[&common[..], &["--run", "r2"]].concat(), std::slice::from_ref(&hard), &[]);
    let output = run_mergeforge(&[
        "curriculum",
        "--dataset",
        SAMPLE,
        "--results",
        results_arg,
        "--out",
        work.path().join("out2").to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("duplicate run `r2`"), "{stderr}");
}

#[test]
fn an_agent_past_its_timeout_is_killed_and_its_tree_graded() {
    let task = tasks_per_level(1).remove(0);
    let started = std::time::Instant::now();
    let work = tempfile::tempdir().unwrap();
    let report = eval(
        &[
            "--agent-cmd",
            "sh -c 'echo started; sleep 60 & sleep 60; echo never'",
            "--agent-timeout",
            "2",
            "--transcripts",
            work.path().to_str().unwrap(),
        ],
        std::slice::from_ref(&task),
        &[],
    );
    let episode = &report["episodes"][0];
    assert!(episode["timed_out"] == true && episode["exit_code"].is_null(), "{episode}");
    assert!(episode["solved"] == false && episode["markers_remaining"].as_u64() > Some(0), "{episode}");
    let wall = episode["wall_s"].as_f64().unwrap();
    assert!((2.0..10.0).contains(&wall), "killed at 2 s of wall time, took {wall}");
    assert!(started.elapsed().as_secs() < 60, "eval waited for the agent's children");
    assert_eq!(report["totals"]["all"]["timed_out"], 1);
    let stdout = std::fs::read_to_string(work.path().join(&task).join("stdout.txt")).unwrap();
    assert_eq!(stdout, "started\n");
}

#[test]
fn passed_through_variables_reach_the_agent_and_no_record() {
    let task = tasks_per_level(1).remove(0);
    let secret = format!("mf-secret-{}", std::process::id());
    let work = tempfile::tempdir().unwrap();
    let (transcripts, results) = (work.path().join("t"), work.path().join("results.jsonl"));
    let report = eval(
        &[
            "--agent-cmd",
            r#"sh -c 'test -z "$MF_NOT_PASSED" && printf %s "$MF_TEST_SECRET" | sha256sum'"#,
            "--agent-env",
            "MF_TEST_SECRET",
            "--transcripts",
            transcripts.to_str().unwrap(),
            "--results",
            results.to_str().unwrap(),
        ],
        std::slice::from_ref(&task),
        &[("MF_TEST_SECRET", &secret), ("MF_NOT_PASSED", "visible")],
    );
    assert_eq!(report["episodes"][0]["exit_code"], 0, "only the named variable is passed: {report}");
    let digest = python_stdout(
        Path::new("python3"),
        &["-c", &format!("import hashlib; print(hashlib.sha256(b'{secret}').hexdigest())")],
        "sha256",
    );
    let stdout = std::fs::read_to_string(transcripts.join(&task).join("stdout.txt")).unwrap();
    assert!(stdout.starts_with(digest.trim()), "the agent saw the value: {stdout} against {digest}");
    let mut records = vec![report.to_string(), std::fs::read_to_string(&results).unwrap()];
    for entry in std::fs::read_dir(transcripts.join(&task)).unwrap() {
        records.push(std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    assert!(records.iter().all(|r| !r.contains(&secret)), "the value was recorded");
}

#[test]
fn a_probe_agent_cannot_leave_its_episode() {
    if !mergeforge::sandbox::confine::landlock_available() {
        let output = run_mergeforge(&["eval", "--dataset", SAMPLE, "--agent-cmd", "true"]);
        assert!(String::from_utf8_lossy(&output.stderr).contains("--allow-unconfined-run"));
        return;
    }
    let task = tasks_per_level(1).remove(0);
    let work = tempfile::tempdir().unwrap();
    let (episodes, outside, home) =
        (work.path().join("episodes"), work.path().join("outside"), work.path().join("home"));
    for dir in [&episodes, &outside, &home] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(home.join("config.txt"), "agent settings\n").unwrap();
    let solution = root().join(SAMPLE).join("tasks").join(&task).join("solution.json");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let writes = format!(
        "{}:{}:/tmp/mf-probe-{}",
        outside.join("x.txt").display(),
        agents_dir().join("x.txt").display(),
        std::process::id()
    );
    let env =
        [("PROBE_WRITE", writes.as_str()), ("PROBE_READ", solution.to_str().unwrap()), ("PROBE_PORT", port.as_str())];
    let probe = |network: &str| -> Value {
        let transcripts = work.path().join(format!("t-{network}"));
        let command = format!("python3 {}/probe.py", agents_dir().display());
        let ro = agent_ro();
        let mut args = vec!["--agent-cmd", &command, "--agent-ro", &ro, "--agent-network", network];
        let (home_arg, work_arg, t_arg) =
            (home.display().to_string(), episodes.display().to_string(), transcripts.display().to_string());
        args.extend(["--agent-home", &home_arg, "--work-dir", &work_arg, "--transcripts", &t_arg]);
        for name in ["PROBE_WRITE", "PROBE_READ", "PROBE_PORT"] {
            args.extend(["--agent-env", name]);
        }
        let args: Vec<&str> = args.iter().map(|s| &**s).collect();
        eval(&args, std::slice::from_ref(&task), &env);
        let stdout = std::fs::read_to_string(transcripts.join(&task).join("stdout.txt")).unwrap();
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
    };
    let report = probe("none");
    for (what, expected) in [
        ("write repo", "ok"),
        ("write home", "ok"),
        ("write tmp", "ok"),
        ("read home config", "ok"),
        ("write above episode", "denied"),
        ("write outside 0", "denied"),
        ("write outside 1", "denied"),
        ("write outside 2", "denied"),
        ("read outside 0", "denied"),
        ("connect host loopback", "denied"),
    ] {
        assert_eq!(report[what], expected, "{what}: {report}");
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    assert!(!agents_dir().join("x.txt").exists());
    assert_eq!(std::fs::read_dir(&home).unwrap().count(), 1, "the home given is copied, never written");
    let host = probe("host");
    assert_eq!(host["connect host loopback"], "ok", "{host}");
    assert_eq!(host["write outside 0"], "denied", "{host}");
}

#[test]
fn bad_agent_commands_get_one_clear_line() {
    for (args, expected) in [
        (vec!["--agent-cmd", ""], "agent command is empty"),
        (vec!["--agent-cmd", "sh -c 'unclosed"], "cannot be split into words"),
        (vec!["--agent", "ours", "--agent-cmd", "true"], "cannot be used with"),
        (vec!["--agent", "ours", "--agent-timeout", "5"], "give --agent-cmd 'CMD' or drop --agent-timeout"),
        (vec!["--agent", "ours", "--agent-network", "host"], "give --agent-cmd 'CMD' or drop --agent-network"),
        (vec!["--agent-cmd", "true", "--agent-ro", "/nonexistent/agent"], "--agent-ro /nonexistent/agent: no such"),
        (
            vec!["--agent-cmd", "true", "--agent-home", "/nonexistent/home"],
            "--agent-home /nonexistent/home: not a folder",
        ),
    ] {
        let output = run_mergeforge(&[&["eval", "--dataset", SAMPLE][..], &args].concat());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?} succeeded");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn an_agent_in_a_read_only_bin_folder_runs_by_name() {
    let task = tasks_per_level(1).remove(0);
    let work = tempfile::tempdir().unwrap();
    let bin = work.path().join("my-agent/bin");
    std::fs::create_dir_all(&bin).unwrap();
    write_file(&bin, "my-agent", "#!/bin/sh\necho \"my-agent in $PWD\"\n");
    std::process::Command::new("chmod").args(["+x", bin.join("my-agent").to_str().unwrap()]).status().unwrap();
    let transcripts = work.path().join("t");
    let report = eval(
        &[
            "--agent-cmd",
            "my-agent --yes",
            "--agent-ro",
            bin.to_str().unwrap(),
            "--transcripts",
            transcripts.to_str().unwrap(),
        ],
        std::slice::from_ref(&task),
        &[],
    );
    assert_eq!(report["command"], "my-agent");
    let stdout = std::fs::read_to_string(transcripts.join(&task).join("stdout.txt")).unwrap();
    assert!(stdout.starts_with("my-agent in ") && stdout.trim_end().ends_with("/repo"), "{stdout}");

    // Not readable: the episode fails with the hint.
    let output = run_mergeforge(&["eval", "--dataset", SAMPLE, "--task", &task, "--agent-cmd", "my-agent"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success() && stderr.contains("--agent-ro"), "{stderr}");
}
