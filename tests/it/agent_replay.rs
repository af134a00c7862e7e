//! The scripted model that real agent programs are tested against
//! (`tests/data/agents/`, run by `second_tier::real_agents`): `replay_server.py`, an
//! OpenAI-compatible chat-completions server replaying a trajectory, spoken to here over
//! real HTTP, streamed and not, with a request that does not match its turn refused; and
//! the committed trajectories, which must be what `record.py` writes from the committed
//! sample's gold (a regenerated sample shows up here, fixed by one command).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use crate::common::{root, venv_python};

/// `tests/data/agents/`.
pub fn agents_dir() -> PathBuf {
    root().join("tests/data/agents")
}

/// The committed trajectories: (agent, task id, file), sorted.
pub fn trajectories() -> Vec<(String, String, PathBuf)> {
    let mut found = Vec::new();
    for agent in std::fs::read_dir(agents_dir()).unwrap() {
        let agent = agent.unwrap().path();
        if !agent.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&agent).unwrap() {
            let file = file.unwrap().path();
            if file.extension().is_some_and(|e| e == "json") {
                let name = |p: &Path| p.file_stem().unwrap().to_string_lossy().into_owned();
                found.push((name(&agent), name(&file), file));
            }
        }
    }
    found.sort();
    found
}

/// A running `replay_server.py`, stopped on drop.
pub struct ReplayServer {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// The server's log: one JSON line per request.
    pub log: PathBuf,
    _dir: tempfile::TempDir,
}

impl ReplayServer {
    /// Starts the server on `trajectories` (name, file) and waits for its port.
    pub fn start(trajectories: &[(&str, &Path)]) -> ReplayServer {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("requests.jsonl");
        let mut command = Command::new(venv_python());
        command.arg(agents_dir().join("replay_server.py"));
        for (name, file) in trajectories {
            command.arg(format!("{name}={}", file.display()));
        }
        command.arg("--log").arg(&log).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = command.spawn().expect("replay_server.py starts");
        let mut line = Vec::new();
        let mut stdout = child.stdout.take().unwrap();
        let mut byte = [0u8; 1];
        while stdout.read(&mut byte).unwrap() == 1 && byte[0] != b'\n' {
            line.push(byte[0]);
        }
        let line = String::from_utf8(line).unwrap();
        let url = line.strip_prefix("listening ").unwrap_or_else(|| panic!("replay_server.py printed {line:?}"));
        ReplayServer { url: url.to_string(), child, log, _dir: dir }
    }

    /// `GET /_replay/status`: per trajectory, replies served and mismatches.
    pub fn status(&self) -> Value {
        let (code, body) = self.request("GET", "/_replay/status", None);
        assert_eq!(code, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    /// One HTTP/1.1 request; the status code and the body.
    pub fn request(&self, method: &str, path: &str, body: Option<&Value>) -> (u16, String) {
        let address = self.url.strip_prefix("http://").unwrap();
        let mut stream = TcpStream::connect(address).expect("connect to the replay server");
        let body = body.map(Value::to_string).unwrap_or_default();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        let (head, body) = response.split_once("\r\n\r\n").unwrap();
        let code = head.split(' ').nth(1).unwrap().parse().unwrap();
        (code, body.to_string())
    }
}

impl Drop for ReplayServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A chat request whose last message is `last` (a tool message when `tool`).
fn chat(last: &str, tool: bool, stream: bool) -> Value {
    let last = if tool {
        json!({"role": "tool", "tool_call_id": "call_1_1", "content": last})
    } else {
        json!({"role": "user", "content": last})
    };
    json!({"model": "replay", "stream": stream, "messages": [{"role": "system", "content": "You merge."}, last]})
}

#[test]
fn the_replay_server_serves_a_trajectory_in_order_streamed_or_not_and_refuses_a_mismatch() {
    let dir = tempfile::tempdir().unwrap();
    let trajectory = dir.path().join("t.json");
    let replies = json!([
        {"expect": ["calc.py"], "content": "Let me look.", "tool_calls": [{"name": "bash", "arguments": {"command": "git status"}}]},
        {"expect": ["both modified:"], "content": "calc.py\n```\nx = 1\n```\n"},
        "Done."
    ]);
    std::fs::write(&trajectory, replies.to_string()).unwrap();
    let server = ReplayServer::start(&[("merge", &trajectory)]);
    let endpoint = "/merge/v1/chat/completions";

    // Turn 1, not streamed: a tool call, its arguments a JSON string.
    let (code, body) = server.request("POST", endpoint, Some(&chat("Resolve calc.py", false, false)));
    assert_eq!(code, 200, "{body}");
    let reply: Value = serde_json::from_str(&body).unwrap();
    let choice = &reply["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(choice["message"]["content"], "Let me look.");
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(call["function"]["name"], "bash");
    let arguments: Value = serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"command": "git status"}));

    // A request whose tool output lacks what turn 2 expects: 500, the turn kept.
    let (code, body) = server.request("POST", endpoint, Some(&chat("nothing to see", true, true)));
    assert_eq!(code, 500, "{body}");
    let message = serde_json::from_str::<Value>(&body).unwrap()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains("request 2 to trajectory 'merge'") && message.contains("both modified:"), "{message}");

    // Turn 2, streamed: server-sent events whose deltas add up to the reply, then [DONE].
    let (code, body) = server.request("POST", endpoint, Some(&chat("both modified: calc.py", true, true)));
    assert_eq!(code, 200, "{body}");
    let events: Vec<&str> = body.lines().filter_map(|l| l.strip_prefix("data: ")).collect();
    assert_eq!(events.last(), Some(&"[DONE]"), "{body}");
    let chunks: Vec<Value> = events[..events.len() - 1].iter().map(|e| serde_json::from_str(e).unwrap()).collect();
    let text: String = chunks.iter().filter_map(|c| c["choices"][0]["delta"]["content"].as_str()).collect();
    assert_eq!(text, "calc.py\n```\nx = 1\n```\n");
    assert_eq!(chunks.last().unwrap()["choices"][0]["finish_reason"], "stop");

    // Turn 3, a plain string; then the trajectory is used up.
    let (code, body) = server.request("POST", "/merge/chat/completions", Some(&chat("ok", false, false)));
    assert_eq!(
        (code, serde_json::from_str::<Value>(&body).unwrap()["choices"][0]["message"]["content"].clone()),
        (200, json!("Done."))
    );
    let (code, body) = server.request("POST", endpoint, Some(&chat("more?", false, false)));
    assert_eq!(code, 500, "{body}");
    assert!(body.contains("has only 3 replies"), "{body}");

    // An unknown trajectory is named with the known ones.
    let (code, body) = server.request("POST", "/other/v1/chat/completions", Some(&chat("hi", false, false)));
    assert_eq!(code, 404, "{body}");
    assert!(body.contains("/merge/v1/chat/completions"), "{body}");

    let status = server.status();
    assert_eq!(status["merge"]["served"], 3, "{status}");
    assert_eq!(status["merge"]["mismatches"].as_array().unwrap().len(), 2, "{status}");
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert_eq!(log.lines().count(), 6, "one line per request:\n{log}");
}

#[test]
fn the_committed_trajectories_are_what_record_py_writes_from_the_sample() {
    let tasks = root().join("generated/mergeforge-embedded/1.0.0/tasks");
    let trajectories = trajectories();
    let agents: std::collections::BTreeSet<&str> = trajectories.iter().map(|(a, _, _)| a.as_str()).collect();
    assert_eq!(agents, ["aider", "mini-swe-agent"].into(), "one folder per real agent");
    for (agent, task, file) in &trajectories {
        let output = Command::new(venv_python())
            .arg(agents_dir().join("record.py"))
            .arg(agent)
            .arg(tasks.join(task))
            .output()
            .unwrap();
        assert!(output.status.success(), "record.py {agent} {task}: {}", String::from_utf8_lossy(&output.stderr));
        let committed = std::fs::read(file).unwrap();
        assert!(
            committed == output.stdout,
            "{} is not what `python3 tests/data/agents/record.py {agent} {}` writes now \
             (was the sample regenerated? run that command into the file)",
            file.display(),
            tasks.join(task).display()
        );
    }
}

#[test]
fn docs_agents_md_gives_as_tested_the_commands_the_second_tier_runs() {
    let docs = std::fs::read_to_string(root().join("docs/agents.md")).unwrap();
    for agent in &crate::second_tier::real_agents::AGENTS {
        let block = format!("```sh\n{}\n```", agent.command);
        assert!(
            docs.contains(&block),
            "docs/agents.md must give {}'s command, as second_tier::real_agents runs it, in a sh block:\n{block}",
            agent.name
        );
        let before = &docs[..docs.find(&block).unwrap()];
        let heading = before.lines().rev().find(|line| line.starts_with('#')).unwrap_or_default();
        assert!(
            heading.to_lowercase().contains("tested") && !heading.to_lowercase().contains("untested"),
            "{}'s command must stand under a heading that says it is tested, not under `{heading}`",
            agent.name
        );
    }
}
