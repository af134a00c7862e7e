//! MCP at `/mcp`: JSON-RPC 2.0 over HTTP, the "Streamable HTTP" transport of the MCP
//! specification with plain JSON replies (no server-sent events).
//!
//! * `POST /mcp` carries one JSON-RPC message. `initialize` opens a session (one of the
//!   server's `--max-sessions` slots, shared with WebSocket connections) and names it in
//!   the `Mcp-Session-Id` reply header; later requests send that header back. A session
//!   holds one episode at a time, like a WebSocket connection.
//! * Methods: `initialize`, `ping`, `tools/list` (the catalogue of [`super::tools`]:
//!   `reset` and the episode's tools, schemas from the same types as the WebSocket
//!   actions), `tools/call`. Notifications (`notifications/initialized`, ...) and client
//!   responses get `202 Accepted` and no body.
//! * `DELETE /mcp` with the header ends the session; `GET /mcp` is `405` (this server
//!   sends nothing unprompted). A session idle for [`IDLE_LIMIT`](super::sessions::IDLE_LIMIT) is dropped.
//!
//! Every failure is a JSON-RPC error object in a `200` reply (so a client reads it), its
//! `data.code` the environment's own code (`INVALID_JSON`, `VALIDATION_ERROR`, ...), and
//! the session goes on: malformed JSON (-32700), a message that is not a JSON-RPC request
//! (-32600), an unknown method (-32601), an unknown tool, arguments the tool's type
//! refuses or a call before `reset` (-32602), a failure to carry out a call (-32603), no
//! free slot (-32000). The exception is the one the specification fixes: a session id
//! this server does not know (never issued, ended or expired) gets `404`, telling the
//! client to initialize again. An `Origin` header naming another host than `Host` is
//! refused (`403`), against DNS rebinding from a browser.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::sessions::{blocking, do_reset, do_step, AppState, McpSession, Slot};
use super::tools::{self, Call};
use super::{EnvError, ErrorCode};

/// The session header (HTTP header names are case-insensitive).
pub(crate) const SESSION_HEADER: &str = "mcp-session-id";

/// Protocol versions this server speaks, newest first; a client asking for another gets
/// the newest.
pub(crate) const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

const INSTRUCTIONS: &str = "Each episode is a git repository in the middle of a conflicted merge. Call `reset` \
    first; then read, edit and write files, `run` commands and `run_tests` until the merge is resolved. The \
    graded tests decide: the task is solved when they pass with no conflict marker left.";

/// A JSON-RPC error: its number, message and the environment's code.
struct RpcError {
    number: i64,
    error: EnvError,
}

impl RpcError {
    fn invalid_request(message: impl Into<String>) -> Self {
        RpcError { number: -32600, error: EnvError::validation(message) }
    }

    fn method_not_found(method: &str) -> Self {
        let message =
            format!("unknown method `{method}`: this server answers initialize, ping, tools/list, tools/call");
        RpcError { number: -32601, error: EnvError { code: ErrorCode::UnknownType, message } }
    }
}

impl From<EnvError> for RpcError {
    fn from(error: EnvError) -> Self {
        let number = match error.code {
            ErrorCode::InvalidJson => -32700,
            ErrorCode::UnknownType => -32601,
            ErrorCode::ValidationError => -32602,
            ErrorCode::ExecutionError => -32603,
            ErrorCode::CapacityReached => -32000,
        };
        RpcError { number, error }
    }
}

fn error_body(id: &Value, error: RpcError) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": error.number, "message": error.error.message, "data": {"code": error.error.code}}
    })
}

fn reply(status: StatusCode, body: Value) -> Response {
    (status, Json(body)).into_response()
}

/// `POST /mcp`.
pub(super) async fn post_route(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refused) = foreign_origin(&headers) {
        return refused;
    }
    let message: Value = match serde_json::from_slice(&body) {
        Ok(message) => message,
        Err(e) => {
            let error = EnvError::from_json(e, "invalid JSON-RPC message");
            return reply(StatusCode::OK, error_body(&Value::Null, error.into()));
        }
    };
    let Some(fields) = message.as_object() else {
        let error = RpcError::invalid_request("a JSON-RPC message is one JSON object (batches are not supported)");
        return reply(StatusCode::OK, error_body(&Value::Null, error));
    };
    let version_ok = fields.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let raw_id = fields.get("id");
    let method = fields.get("method").and_then(Value::as_str);
    let is_response = method.is_none() && (fields.contains_key("result") || fields.contains_key("error"));
    // A notification or a client's response: nothing to answer.
    if version_ok && (is_response || method.is_some() && raw_id.is_none()) {
        return StatusCode::ACCEPTED.into_response();
    }
    let valid_id = raw_id.is_some_and(|id| id.is_string() || id.is_number());
    let id = raw_id.filter(|_| valid_id).cloned().unwrap_or(Value::Null);
    let Some(method) = method.filter(|_| version_ok && valid_id) else {
        let error = RpcError::invalid_request(
            "not a JSON-RPC 2.0 request: expected {\"jsonrpc\": \"2.0\", \"id\": a string or a number, \"method\", \"params\"}",
        );
        return reply(StatusCode::OK, error_body(&id, error));
    };
    let params = fields.get("params").cloned().unwrap_or(Value::Null);
    if method == "initialize" {
        return initialize(&state, &id, &params);
    }
    // Any other request: the session it names, if it names one.
    let session = match headers.get(SESSION_HEADER).map(|v| v.to_str().unwrap_or_default()) {
        None => None,
        Some(sid) => match state.mcp.get(sid) {
            Some(session) => Some(session),
            None => {
                let error = RpcError::invalid_request(format!(
                    "unknown MCP session `{sid}` (ended, expired or never opened): send initialize again"
                ));
                return reply(StatusCode::NOT_FOUND, error_body(&id, error));
            }
        },
    };
    let result = match method {
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({"tools": tools::catalogue()})),
        "tools/call" => call(&state, session.as_deref(), &params).await,
        other => Err(RpcError::method_not_found(other)),
    };
    match result {
        Ok(result) => reply(StatusCode::OK, json!({"jsonrpc": "2.0", "id": id, "result": result})),
        Err(error) => reply(StatusCode::OK, error_body(&id, error)),
    }
}

/// `initialize`: a new session, its id in the reply's header.
fn initialize(state: &Arc<AppState>, id: &Value, params: &Value) -> Response {
    state.mcp.expire();
    let Some(slot) = Slot::acquire(state) else {
        let error = EnvError {
            code: ErrorCode::CapacityReached,
            message: format!(
                "server at capacity: {} sessions in use (--max-sessions); retry later",
                state.options.max_sessions
            ),
        };
        return reply(StatusCode::OK, error_body(id, error.into()));
    };
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked.filter(|v| PROTOCOL_VERSIONS.contains(v)).unwrap_or(PROTOCOL_VERSIONS[0]);
    let sid = super::episode::new_episode_id();
    let session =
        McpSession { session: Arc::new(Mutex::new(None)), last_used: Mutex::new(Instant::now()), _slot: slot };
    state.mcp.map().insert(sid.clone(), Arc::new(session));
    let result = json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "mergeforge", "title": "mergeforge merge-conflict environment", "version": crate::GENERATOR_VERSION},
        "instructions": INSTRUCTIONS
    });
    let mut response = reply(StatusCode::OK, json!({"jsonrpc": "2.0", "id": id, "result": result}));
    response.headers_mut().insert(SESSION_HEADER, HeaderValue::from_str(&sid).expect("hex is a header value"));
    response
}

/// `tools/call`: `reset` or an episode tool, in `session`.
async fn call(state: &Arc<AppState>, session: Option<&McpSession>, params: &Value) -> Result<Value, RpcError> {
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        return Err(EnvError::validation("tools/call needs `params.name`: the tool (tools/list names them)").into());
    };
    let max_text_bytes = state.env.settings.config.max_resolution_bytes;
    let call = tools::parse_call(name, params.get("arguments").cloned(), max_text_bytes)?;
    let Some(session) = session else {
        return Err(EnvError::validation(
            "no MCP session: send initialize first and then its Mcp-Session-Id header with every request",
        )
        .into());
    };
    let reply = match call {
        Call::Reset(request) => blocking(state, &session.session, move |env, s| do_reset(env, s, request)).await?,
        Call::Step(action) => blocking(state, &session.session, move |_, s| do_step(s, action)).await?,
    };
    Ok(tools::tool_result(&reply))
}

/// `DELETE /mcp`: ends the session the header names.
pub(super) async fn delete_route(State(state): State<Arc<AppState>>, headers: HeaderMap) -> Response {
    let Some(sid) = headers.get(SESSION_HEADER).and_then(|v| v.to_str().ok()) else {
        return (StatusCode::BAD_REQUEST, "DELETE /mcp needs the Mcp-Session-Id header").into_response();
    };
    let removed = state.mcp.map().remove(sid);
    match removed {
        Some(session) => {
            // Dropping removes the episode's files, off the async threads; the session's
            // slot is free by the time DELETE answers, so a client may start another.
            let _ = tokio::task::spawn_blocking(move || drop(session)).await;
            StatusCode::NO_CONTENT.into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// `403` when the request comes from a web page of another host than the one asked.
fn foreign_origin(headers: &HeaderMap) -> Option<Response> {
    let origin = headers.get("origin")?.to_str().unwrap_or_default();
    let host = headers.get("host").and_then(|h| h.to_str().ok()).unwrap_or_default();
    let origin_host = origin.split("://").nth(1).unwrap_or(origin).trim_end_matches('/');
    if origin_host.eq_ignore_ascii_case(host) {
        return None;
    }
    let error = RpcError::invalid_request(format!("Origin `{origin}` is not this server ({host})"));
    Some(reply(StatusCode::FORBIDDEN, error_body(&Value::Null, error)))
}
