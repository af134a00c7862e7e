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
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

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
use super::episode::Episode;
use super::observation::{EpisodeState, StepReply};
use super::protocol::{self, Incoming, Outgoing};
use super::{EnvError, Environment, ErrorCode, ResetRequest};

/// Limits of the server itself (episode limits live in [`super::EnvConfig`]).
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub addr: SocketAddr,
    /// Sessions at once: WebSocket connections and MCP sessions together.
    pub max_sessions: usize,
    /// Largest WebSocket message or HTTP body, in bytes. Above this the connection is
    /// closed (WebSocket) or refused with 413 (HTTP): keep it above the resolution limit
    /// so that oversized resolutions get a clear error frame instead.
    pub max_message_bytes: usize,
}

/// Frames a client may send while a step is still running before the connection is
/// closed.
const MAX_QUEUED_FRAMES: usize = 32;

pub(super) type Session = Arc<Mutex<Option<Episode>>>;

pub(super) struct AppState {
    pub(super) env: Arc<Environment>,
    pub(super) options: ServeOptions,
    active: AtomicUsize,
    default_session: Session,
    pub(super) mcp: super::mcp::Sessions,
}

/// Binds `options.addr`, calls `on_bound` with the bound address, and serves until
/// `shutdown` completes.
pub async fn serve(
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
pub fn router(env: Arc<Environment>, options: ServeOptions) -> Router {
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
        mcp: super::mcp::Sessions::default(),
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

// ---- the work, on the blocking pool ----

fn lock(session: &Session) -> MutexGuard<'_, Option<Episode>> {
    // A panic inside a step must not take the session down with it.
    session.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub(super) fn do_reset(env: &Environment, session: &Session, request: ResetRequest) -> Result<StepReply, EnvError> {
    // A failed reset leaves the current episode in place; a new one replaces it (and
    // the old directory goes).
    let (episode, reply) = env.reset(&request)?;
    let previous = lock(session).replace(episode);
    // Removing the previous episode's directory is not the new episode's business: it
    // goes on its own thread, off the reset's reply.
    if let Some(previous) = previous {
        std::thread::spawn(move || drop(previous));
    }
    Ok(reply)
}

pub(super) fn do_step(session: &Session, action: Action) -> Result<StepReply, EnvError> {
    let mut guard = lock(session);
    let episode = guard.as_mut().ok_or_else(|| {
        EnvError::validation("no episode yet: send a reset first (a reset frame, POST /reset or the reset tool)")
    })?;
    episode.step(action)
}

fn do_state(env: &Environment, session: &Session) -> EpisodeState {
    lock(session).as_ref().map_or_else(|| EpisodeState::empty(env.settings.config.max_steps), Episode::state)
}

pub(super) async fn blocking<T, F>(state: &AppState, session: &Session, work: F) -> Result<T, EnvError>
where
    F: FnOnce(&Environment, &Session) -> Result<T, EnvError> + Send + 'static,
    T: Send + 'static,
{
    let env = state.env.clone();
    let session = session.clone();
    tokio::task::spawn_blocking(move || work(&env, &session))
        .await
        .unwrap_or_else(|e| Err(EnvError::execution(format!("internal error while handling the request: {e}"))))
}

// ---- WebSocket ----

async fn ws_route(ws: WebSocketUpgrade, State(state): State<Arc<AppState>>) -> Response {
    let limit = state.options.max_message_bytes;
    ws.max_message_size(limit).max_frame_size(limit).on_upgrade(move |socket| ws_session(socket, state))
}

/// Holds one of the `max_sessions` slots while alive.
pub(super) struct Slot(Arc<AppState>);

impl Slot {
    pub(super) fn acquire(state: &Arc<AppState>) -> Option<Slot> {
        let max = state.options.max_sessions;
        state.active.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < max).then_some(n + 1)).ok()?;
        Some(Slot(state.clone()))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.active.fetch_sub(1, Ordering::AcqRel);
    }
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
