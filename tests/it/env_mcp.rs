//! MCP at `/mcp` on a real `mergeforge serve`: the official MCP Python SDK (`mcp` from
//! PyPI) plays a gold episode, OpenEnv's own checker (`openenv validate --url`, PyPI
//! package `openenv` 0.10, in its own venv beside `openenv-core` 0.3's) passes every
//! criterion, and every case of bad input under `tests/data/env/mcp/` gets its JSON-RPC
//! error while the session goes on.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use crate::common::*;
use crate::env_server::{Server, SAMPLE};
use serde_json::{json, Value};

/// A task with two conflicted source files.
const TWO_FILES: &str = "processor-0f7646931a";
const DIVERGE: &str = "calculator-c80129ecf3";

/// A reply of `POST /mcp`: status, the session header, the body (JSON, or `Null` when empty).
struct Reply {
    status: u16,
    session: Option<String>,
    body: Value,
}

/// One HTTP/1.1 request to `/mcp`.
fn mcp(addr: &str, method: &str, body: &str, session: Option<&str>, origin: Option<&str>) -> Reply {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(300))).unwrap();
    let mut head = format!(
        "{method} /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    if let Some(origin) = origin {
        head.push_str(&format!("Origin: {origin}\r\n"));
    }
    write!(stream, "{head}\r\n{body}").unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let text = String::from_utf8_lossy(&response).into_owned();
    let (head, payload) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let session = head
        .lines()
        .find_map(|l| l.split_once(':').filter(|(k, _)| k.eq_ignore_ascii_case("mcp-session-id")))
        .map(|(_, v)| v.trim().to_string());
    Reply { status, session, body: serde_json::from_str(payload).unwrap_or(Value::Null) }
}

fn request(method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string()
}

/// `initialize`: the new session's id.
fn initialize(addr: &str) -> String {
    let params =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}});
    let reply = mcp(addr, "POST", &request("initialize", params), None, None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    assert_eq!(reply.body["result"]["protocolVersion"], "2025-06-18", "{}", reply.body);
    let session = reply.session.expect("initialize names the session in Mcp-Session-Id");
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let accepted = mcp(addr, "POST", &note, Some(&session), None);
    assert_eq!((accepted.status, accepted.body), (202, Value::Null), "a notification gets 202 and no body");
    session
}

fn call(addr: &str, session: &str, tool: &str, arguments: Value) -> Value {
    let reply =
        mcp(addr, "POST", &request("tools/call", json!({"name": tool, "arguments": arguments})), Some(session), None);
    assert_eq!(reply.status, 200, "{}", reply.body);
    reply.body
}

#[test]
fn the_mcp_python_sdk_plays_a_gold_episode() {
    let python = python_with(&["mcp>=1.20,<2"]);
    let server = Server::start(&["--max-sessions", "4"]);
    let script = root().join("tests/data/env/mcp_client.py").display().to_string();
    let args = [script, format!("http://{}", server.addr), root().join(SAMPLE).display().to_string(), TWO_FILES.into()];
    let out = python_stdout(&python, &args, "mcp_client.py");
    for line in [
        "tools/list: reset, write_file, read_file, edit_file, run, run_tests, finish",
        "before reset: refused",
        "run_tests with markers left",
        &format!("gold: {TWO_FILES} solved"),
        "all checks passed",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}

#[test]
fn openenv_validate_passes_every_criterion() {
    let python = python_with(&["openenv>=0.10,<0.11"]);
    let server = Server::start(&[]);
    let args = ["-m", "openenv.cli", "validate", "--url", &format!("http://{}", server.addr), "--json"];
    let out = python_stdout(&python, &args, "openenv validate");
    let report: Value = serde_json::from_str(&out[out.find('{').expect("a JSON report")..out.rfind('}').unwrap() + 1])
        .unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(report["passed"], true, "{report:#}");
    let ids: Vec<&str> = report["criteria"].as_array().unwrap().iter().filter_map(|c| c["id"].as_str()).collect();
    assert!(ids.contains(&"mcp_endpoint") && ids.len() >= 6, "{ids:?}");
    let summary = &report["summary"];
    assert_eq!(summary["required_passed_count"], summary["required_total_count"], "{summary}");
}

#[test]
fn bad_input_gets_json_rpc_errors_and_the_session_goes_on() {
    let server = Server::start(&["--max-sessions", "40"]);
    let addr = server.addr.as_str();
    let folder = root().join("tests/data/env/mcp");
    let mut cases: Vec<_> = std::fs::read_dir(&folder).unwrap().map(|e| e.unwrap().path()).collect();
    cases.sort();
    assert!(cases.len() >= 20, "{} cases", cases.len());
    for path in &cases {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let case: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let session = initialize(addr);
        let reset = case["reset"] == true;
        if reset {
            let reply = call(addr, &session, "reset", json!({"task_id": DIVERGE}));
            assert!(reply["result"]["structuredContent"]["observation"].is_object(), "{name}: {reply}");
        }
        let body = match case["raw"].as_str() {
            Some(raw) => raw.to_string(),
            None => case["request"].to_string(),
        };
        let header = match case["session"].as_str() {
            Some("none") => None,
            Some("unknown") => Some("0123456789abcdef"),
            _ => Some(session.as_str()),
        };
        let reply = mcp(addr, "POST", &body, header, case["origin"].as_str());
        let expect = &case["expect"];
        assert_eq!(u64::from(reply.status), expect["status"].as_u64().unwrap(), "{name}: {}", reply.body);
        let error = &reply.body["error"];
        assert_eq!(reply.body["jsonrpc"], "2.0", "{name}: {}", reply.body);
        assert_eq!(error["code"], expect["code"], "{name}: {}", reply.body);
        assert_eq!(error["data"]["code"], expect["env_code"], "{name}: {}", reply.body);
        let message = error["message"].as_str().unwrap_or_default();
        assert!(message.contains(expect["words"].as_str().unwrap()), "{name}: {message:?}");
        let request_id = case["request"]["id"].clone();
        // (A foreign page's request is refused unread.)
        if request_id.is_number() && case["origin"].is_null() {
            assert_eq!(reply.body["id"], request_id, "{name}: the error answers the request's id");
        }
        // The session goes on: its episode (or, before any reset, the session) still answers.
        if reset {
            let read =
                call(addr, &session, "read_file", json!({"path": "calculator.py", "start_line": 1, "end_line": 1}));
            assert_eq!(read["result"]["structuredContent"]["observation"]["step_count"], 1, "{name}: {read}");
        } else {
            let ping = mcp(addr, "POST", &request("ping", json!({})), Some(&session), None);
            assert_eq!((ping.status, &ping.body["result"]), (200, &json!({})), "{name}: {}", ping.body);
        }
        // DELETE ends the session: its id is unknown afterwards.
        assert_eq!(mcp(addr, "DELETE", "", Some(&session), None).status, 204, "{name}");
        assert_eq!(mcp(addr, "POST", &request("ping", json!({})), Some(&session), None).status, 404, "{name}");
    }
    assert_eq!(mcp(addr, "GET", "", None, None).status, 405, "no server-sent event stream");
}

#[test]
fn mcp_sessions_share_the_session_limit() {
    let server = Server::start(&["--max-sessions", "1"]);
    let addr = server.addr.as_str();
    let first = initialize(addr);
    let params =
        json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}});
    let refused = mcp(addr, "POST", &request("initialize", params.clone()), None, None);
    assert_eq!(refused.body["error"]["data"]["code"], "CAPACITY_REACHED", "{}", refused.body);
    assert_eq!(refused.body["error"]["code"], -32000);
    assert!(refused.session.is_none());
    assert_eq!(mcp(addr, "DELETE", "", Some(&first), None).status, 204);
    let again = mcp(addr, "POST", &request("initialize", params), None, None);
    assert!(again.session.is_some() && again.body["result"].is_object(), "{}", again.body);
}
