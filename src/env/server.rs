//! `mergeforge serve`: the environment over HTTP and WebSocket (axum on tokio).
//!
//! * `WS /ws`: one isolated episode per connection, dropped (with its directory) when
//!   the connection ends. At most `max_sessions` connections hold an episode; the next
//!   one gets a `CAPACITY_REACHED` error frame and is closed. WebSocket pings are
//!   answered, also while a step is running.
//! * `POST /reset`, `POST /step`, `GET /state`: one **default session** shared by every
//!   HTTP client (OpenEnv's HTTP routes are meant for simple, sequential use; concurrent
//!   agents should use `/ws`). Errors are 4xx/5xx with `{"detail", "code"}`.
//! * `POST /mcp` (and `DELETE`): MCP over JSON-RPC ([`super::mcp`]): the same tools,
//!   one episode per MCP session; sessions share the `max_sessions` slots.
//! * `GET /health`, `/metadata`, `/schema`, `/openapi.json`.
//! * `GET /` and `/api/*`: the task browser and demo page ([`super::web`]), only with
//!   `--reveal-task-info` (they show levels, families and gold); otherwise 404 saying so.
//!
//! Episode work (git, files, tests) runs on tokio's blocking pool; the async side only
//! moves frames.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use axum::body::Bytes;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{DefaultBodyLimit, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};

use super::action::Action;
use super::observation::StepReply;
use super::protocol::{self, Incoming, Outgoing};
pub(crate) use super::sessions::ServeOptions;
use super::sessions::{blocking, do_reset, do_state, do_step, AppState, McpSessions, Session, Slot};
use super::{EnvError, Environment, ErrorCode, ResetRequest};

/// Frames a client may send while a step is still running before the connection is
/// closed.
const MAX_QUEUED_FRAMES: usize = 32;

/// Binds `options.addr`, calls `on_bound` with the bound address, and serves until
/// `shutdown` completes.
pub(crate) async fn serve(
    env: Arc<Environment>,
    options: ServeOptions,
    on_bound: impl FnOnce(SocketAddr),
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(options.addr)
        .await
        .with_context(|| format!("cannot listen on {}: is the port in use?", options.addr))?;
    on_bound(listener.local_addr()?);
    let app = router(env, options);
    // Replies go out at once: with Nagle's algorithm a reply written in several pieces
    // waits for the client's delayed ACK (40 ms on Linux) before its last piece.
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    tokio::select! {
        served = async { axum::serve(listener, app).await } => served.context("serving HTTP"),
        () = shutdown => Ok(()),
    }
}

/// The routes, for `serve` and for tests that bring their own listener.
pub(crate) fn router(env: Arc<Environment>, options: ServeOptions) -> Router {
    let limit = options.max_message_bytes;
    let web = if env.settings.config.reveal_task_info {
        super::web::router(env.clone(), options.max_sessions)
    } else {
        super::web::closed_router()
    };
    let state = Arc::new(AppState {
        env,
        options,
        active: AtomicUsize::new(0),
        default_session: Arc::new(Mutex::new(None)),
        mcp: McpSessions::default(),
    });
    Router::new()
        .route("/ws", get(ws_route))
        .route("/health", get(|| async { Json(json!({"status": "healthy"})) }))
        .route("/metadata", get(metadata_route))
        .route("/schema", get(|| async { Json(protocol::schemas()) }))
        .route("/openapi.json", get(|| async { Json(protocol::openapi()) }))
        .route("/reset", post(reset_route))
        .route("/step", post(step_route))
        .route("/state", get(state_route))
        .route("/mcp", post(super::mcp::post_route).delete(super::mcp::delete_route))
        .layer(DefaultBodyLimit::max(limit))
        .with_state(state)
        .merge(web)
}

// ---- WebSocket ----

async fn ws_route(ws: WebSocketUpgrade, State(state): State<Arc<AppState>>) -> Response {
    let limit = state.options.max_message_bytes;
    ws.max_message_size(limit).max_frame_size(limit).on_upgrade(move |socket| ws_session(socket, state))
}

async fn ws_session(mut socket: WebSocket, state: Arc<AppState>) {
    let Some(_slot) = Slot::acquire(&state) else {
        let error = EnvError {
            code: ErrorCode::CapacityReached,
            message: format!(
                "server at capacity: {} sessions in use (--max-sessions); retry later",
                state.options.max_sessions
            ),
        };
        let _ = send(&mut socket, &Outgoing::Error(error)).await;
        let _ = socket.send(Message::Close(None)).await;
        return;
    };
    let session: Session = Arc::new(Mutex::new(None));
    let mut queued: VecDeque<Message> = VecDeque::new();
    // Each turn handles one frame; the loop ends when the client closes or goes away.
    loop {
        let message = match queued.pop_front() {
            Some(message) => message,
            None => match socket.recv().await {
                Some(Ok(message)) => message,
                _ => break,
            },
        };
        let text = match message {
            Message::Text(text) => text.to_string(),
            Message::Binary(bytes) => match String::from_utf8(bytes.to_vec()) {
                Ok(text) => text,
                Err(_) => {
                    let error = EnvError::invalid_json("frame is not UTF-8 text: send JSON");
                    if send(&mut socket, &Outgoing::Error(error)).await.is_err() {
                        break;
                    }
                    continue;
                }
            },
            Message::Ping(_) | Message::Pong(_) => continue,
            Message::Close(_) => break,
        };
        let Some(reply) = handle_frame(&state, &session, &text, &mut socket, &mut queued).await else { break };
        if send(&mut socket, &reply).await.is_err() {
            break;
        }
    }
    // Removing the episode directory is file-system work: off the async threads.
    tokio::task::spawn_blocking(move || drop(session));
}

/// The reply to one frame, or `None` to close the connection.
async fn handle_frame(
    state: &Arc<AppState>,
    session: &Session,
    text: &str,
    socket: &mut WebSocket,
    queued: &mut VecDeque<Message>,
) -> Option<Outgoing> {
    let frame = match protocol::parse_frame(text, state.env.settings.config.max_resolution_bytes) {
        Ok(frame) => frame,
        Err(error) => return Some(Outgoing::Error(error)),
    };
    type Work = Box<dyn FnOnce(&Environment, &Session) -> Result<Outgoing, EnvError> + Send>;
    let work: Work = match frame {
        Incoming::Close => return None,
        Incoming::Ping => return Some(Outgoing::Pong),
        Incoming::State => Box::new(|env, s| Ok(Outgoing::State(do_state(env, s)))),
        Incoming::Reset(request) => Box::new(move |env, s| do_reset(env, s, request).map(Outgoing::Observation)),
        Incoming::Step(action) => Box::new(move |_, s| do_step(s, action).map(Outgoing::Observation)),
    };
    let work = blocking(state, session, work);
    // Keep reading while the work runs, so that pings are answered; other frames wait.
    tokio::pin!(work);
    loop {
        tokio::select! {
            result = &mut work => return Some(result.unwrap_or_else(Outgoing::Error)),
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                Some(Ok(message)) if queued.len() < MAX_QUEUED_FRAMES => queued.push_back(message),
                // Gone, broken, or flooding: finish the work (the episode stays
                // consistent), then close.
                _ => {
                    let _ = work.await;
                    return None;
                }
            },
        }
    }
}

async fn send(socket: &mut WebSocket, frame: &Outgoing) -> Result<(), axum::Error> {
    socket.send(Message::Text(frame.to_text().into())).await
}

// ---- HTTP ----

fn http_reply(result: Result<StepReply, EnvError>) -> Response {
    match result {
        Ok(reply) => Json(reply).into_response(),
        Err(error) => error.into_response(),
    }
}

/// The body of `POST /step`.
#[derive(Deserialize)]
struct StepBody {
    action: Value,
}

/// A request body as JSON; an empty body is `null`.
fn parse_body(body: &Bytes) -> Result<Value, EnvError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(body).map_err(|e| EnvError::from_json(e, "invalid body"))
}

async fn reset_route(State(state): State<Arc<AppState>>, body: Bytes) -> Response {
    let request = match parse_body(&body).and_then(ResetRequest::parse) {
        Ok(request) => request,
        Err(error) => return error.into_response(),
    };
    let session = state.default_session.clone();
    http_reply(blocking(&state, &session, move |env, s| do_reset(env, s, request)).await)
}

async fn step_route(State(state): State<Arc<AppState>>, body: Bytes) -> Response {
    let max_text_bytes = state.env.settings.config.max_resolution_bytes;
    let action = parse_body(&body).and_then(|body| {
        let body: StepBody = serde_json::from_value(body)
            .map_err(|e| EnvError::from_json(e, "the body is a JSON object {\"action\": {...}}"))?;
        Action::parse(body.action, max_text_bytes).map_err(EnvError::validation)
    });
    let action = match action {
        Ok(action) => action,
        Err(error) => return error.into_response(),
    };
    let session = state.default_session.clone();
    http_reply(blocking(&state, &session, move |_, s| do_step(s, action)).await)
}

async fn state_route(State(state): State<Arc<AppState>>) -> Response {
    let session = state.default_session.clone();
    match blocking(&state, &session, |env, s| Ok(do_state(env, s))).await {
        Ok(episode_state) => Json(episode_state).into_response(),
        Err(error) => error.into_response(),
    }
}

async fn metadata_route(State(state): State<Arc<AppState>>) -> Json<Value> {
    let manifest = &state.env.tasks.manifest;
    Json(protocol::metadata(&manifest.dataset, &manifest.version, state.env.tasks.tasks.len()))
}
