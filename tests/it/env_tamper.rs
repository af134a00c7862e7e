//! The grader cannot be touched: every case in `tests/data/env/tamper/` (overwritten
//! tests, a conftest forcing exit status 0, a skipping conftest, a deselecting
//! pytest.ini, `sys.exit(0)` in a conftest, `os._exit(0)` in the source) fools the
//! plain exit status in the agent's own tree, yet earns no test reward and never ends
//! the episode solved. Driven through the real server over the WebSocket protocol; gold
//! still earns the maximum on the same task.

use std::path::Path;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::common::*;
use crate::env_server::{connect, exchange, step, Server, Ws, SAMPLE};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    about: String,
    resolve_with: String,
    runs: Vec<String>,
}

/// The first textual task (in id order) that `ours` does not solve, with its test command.
fn target_task(dataset: &Path) -> (String, String) {
    let mut ids: Vec<String> = std::fs::read_dir(dataset.join("tasks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    for id in ids {
        let task = read_json(&dataset.join("tasks").join(&id).join("task.json"));
        let solution = read_json(&dataset.join("tasks").join(&id).join("solution.json"));
        if task["conflict_kind"] == "textual" && solution["validation"]["baselines"]["ours"]["passed"] == false {
            let command: Vec<&str> =
                task["test_command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
            return (id, command.join(" "));
        }
    }
    panic!("no textual task that ours fails in {}", dataset.display());
}

fn resolve_with(agent: &str, text: &str) -> String {
    let resolver = mergeforge::resolve::ALL
        .iter()
        .copied()
        .find(|r| r.agent() == Some(agent))
        .unwrap_or_else(|| panic!("no resolver agent `{agent}`"));
    mergeforge::resolve::resolve_text(resolver, text)
}

/// Sends `action`, checks the reply is an observation, and returns its data.
async fn act(ws: &mut Ws, action: Value, case: &str) -> Value {
    let reply = step(ws, action.clone()).await;
    assert_eq!(reply["type"], "observation", "{case}: {action}: {reply}");
    reply["data"].clone()
}

/// Plays one case; returns the tests component earned and whether any step was solved.
async fn play(ws: &mut Ws, task: &str, command: &str, name: &str, case: &Case) -> (f64, bool) {
    let reset = exchange(ws, json!({"type": "reset", "data": {"task_id": task}}).to_string()).await;
    let files = reset["data"]["observation"]["files"].as_object().expect("files").clone();
    let mut replies = Vec::new();
    for (path, text) in &files {
        let resolution = resolve_with(&case.resolve_with, text.as_str().unwrap());
        replies.push(act(ws, json!({"file": path, "resolution": resolution}), name).await);
    }
    for line in &case.runs {
        let reply = act(ws, json!({"tool": "run", "command": line}), name).await;
        assert!(reply["observation"]["last_output"].as_str().unwrap().starts_with("exit 0"), "{name}: {reply}");
        replies.push(reply);
    }
    // The tamper works on the agent's own tree: its own test run exits 0.
    let own = act(ws, json!({"tool": "run", "command": command}), name).await;
    let own_output = own["observation"]["last_output"].as_str().unwrap().to_string();
    assert!(
        own_output.starts_with("exit 0"),
        "{name} ({}): its own test run does not exit 0:\n{own_output}",
        case.about
    );
    replies.push(own);
    if !replies.last().unwrap()["done"].as_bool().unwrap() {
        replies.push(act(ws, json!({"tool": "finish"}), name).await);
    }
    let last = replies.last().unwrap();
    assert_eq!(last["done"], true, "{name}: the episode ended: {last}");
    let tests: f64 = replies.iter().map(|r| r["observation"]["reward_components"]["tests"].as_f64().unwrap()).sum();
    let solved = replies.iter().any(|r| r["observation"]["tests_passing"] == true);
    (tests, solved)
}

#[tokio::test]
async fn tampering_with_the_tests_earns_nothing() {
    let dataset = root().join(SAMPLE);
    let (task, command) = target_task(&dataset);
    let server = Server::start(&["--max-sessions", "4", "--max-steps", "20"]);
    let cases_dir = root().join("tests/data/env/tamper");
    let mut names: Vec<String> = std::fs::read_dir(&cases_dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    let mut failures = Vec::new();
    for name in &names {
        let text = std::fs::read_to_string(cases_dir.join(name).join("case.toml")).unwrap();
        let case: Case = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}/case.toml: {e}"));
        let mut ws = connect(&server).await;
        let (tests, solved) = play(&mut ws, &task, &command, name, &case).await;
        if tests != 0.0 || solved {
            failures.push(format!("{name} ({}): tests component {tests}, solved {solved}", case.about));
        }
    }
    assert!(failures.is_empty(), "tampering paid on {task}:\n{}", failures.join("\n"));

    // Gold on the same task still earns the maximum.
    let solution = read_json(&dataset.join("tasks").join(&task).join("solution.json"));
    let record = read_json(&dataset.join("tasks").join(&task).join("task.json"));
    let conflicted: Vec<&Value> = record["conflicts"].as_array().unwrap().iter().map(|c| &c["path"]).collect();
    let mut files: Vec<&Value> = solution["files"].as_array().unwrap().iter().collect();
    files.sort_by_key(|f| conflicted.contains(&&f["path"]));
    let mut ws = connect(&server).await;
    exchange(&mut ws, json!({"type": "reset", "data": {"task_id": task}}).to_string()).await;
    let mut last = Value::Null;
    for file in files {
        last = act(&mut ws, json!({"file": file["path"], "resolution": file["gold"]}), "gold").await;
    }
    let obs = &last["observation"];
    assert!(last["done"] == true && obs["tests_passing"] == true, "gold: {last}");
    assert_eq!(obs["total_reward"], obs["max_reward"], "gold: {last}");
}
