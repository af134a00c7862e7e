//! The task browser and live demo page of `mergeforge serve`.
//!
//! * `GET /` and `/assets/*`: one page of plain HTML, CSS and JavaScript, embedded in
//!   the binary (no CDN, no build step); a Content-Security-Policy keeps it to its own
//!   origin.
//! * `GET /api/tasks?level=&family=&substrate=`: the filtered task list with a count
//!   for every filter value ([`catalog::list`]).
//! * `GET /api/tasks/{id}`: one task's conflicted and gold files with their diff, the
//!   validation record and the baseline ladder ([`catalog::view`]).
//! * `POST /api/demo/run {"task", "agent"}`: a baseline agent plays the task through the
//!   environment's own episode code ([`demo::run`]); at most `max_runs` at once, the
//!   next gets 503 `CAPACITY_REACHED`.
//!
//! The page shows every task's level, family and gold resolution, so `serve` offers it
//! only with `--reveal-task-info`; otherwise [`closed_router`] answers these paths with
//! 404 and how to open them.
//!
//! Errors are `{"detail", "code"}` like the OpenEnv HTTP routes. This module only reads
//! the environment; it owns no episode beyond the demo run it is answering.

pub(crate) mod catalog;
pub(crate) mod demo;
pub(crate) mod diff;

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use tokio::sync::Semaphore;

use super::{agents, EnvError, Environment, ErrorCode};
use catalog::Filter;
use demo::DemoRequest;

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_CSS: &str = include_str!("assets/app.css");
const APP_JS: &str = include_str!("assets/app.js");

/// Everything the page may load: itself, nothing from elsewhere, no inline code.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; \
                   base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

struct WebState {
    env: Arc<Environment>,
    runs: Arc<Semaphore>,
}

/// The page's routes; merged into the server's router.
pub(crate) fn router(env: Arc<Environment>, max_runs: usize) -> Router {
    let state = Arc::new(WebState { env, runs: Arc::new(Semaphore::new(max_runs.max(1))) });
    Router::new()
        .route("/", get(|| async { asset(INDEX_HTML, "text/html; charset=utf-8") }))
        .route("/assets/app.css", get(|| async { asset(APP_CSS, "text/css; charset=utf-8") }))
        .route("/assets/app.js", get(|| async { asset(APP_JS, "text/javascript; charset=utf-8") }))
        .route("/api/tasks", get(list_route))
        .route("/api/tasks/{id}", get(task_route))
        .route("/api/demo/run", post(run_route))
        .with_state(state)
}

/// Why the page is not served, for `/` and `/api/*` on a server without
/// `--reveal-task-info`.
const CLOSED: &str = "the task browser shows every task's level, family and gold resolution: \
                      start `mergeforge serve` with --reveal-task-info to open it";

/// The page's paths on a server that does not reveal task information: 404 with why.
pub(crate) fn closed_router() -> Router {
    let closed = || async { error(StatusCode::NOT_FOUND, ErrorCode::ValidationError, CLOSED) };
    Router::new().route("/", get(closed)).route("/api/{*rest}", get(closed).post(closed))
}

fn asset(body: &'static str, content_type: &'static str) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn error(status: StatusCode, code: ErrorCode, detail: impl Into<String>) -> Response {
    (status, Json(json!({"detail": detail.into(), "code": code}))).into_response()
}

async fn list_route(State(state): State<Arc<WebState>>, query: Result<Query<Filter>, QueryRejection>) -> Response {
    let filter = match query {
        Ok(Query(filter)) => filter,
        Err(e) => return error(StatusCode::BAD_REQUEST, ErrorCode::ValidationError, format!("invalid filters: {e}")),
    };
    if let Err(message) = filter.check() {
        return error(StatusCode::UNPROCESSABLE_ENTITY, ErrorCode::ValidationError, message);
    }
    Json(catalog::list(&state.env.tasks, &filter, &agents::names())).into_response()
}

async fn task_route(State(state): State<Arc<WebState>>, Path(id): Path<String>) -> Response {
    let Some(entry) = state.env.tasks.tasks.iter().find(|t| t.task.id == id) else {
        return error(
            StatusCode::NOT_FOUND,
            ErrorCode::ValidationError,
            format!("unknown task `{id}`: GET /api/tasks lists them"),
        );
    };
    match catalog::view(entry, &state.env.settings.config.weights) {
        Ok(view) => Json(view).into_response(),
        Err(message) => error(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::ExecutionError, message),
    }
}

async fn run_route(State(state): State<Arc<WebState>>, body: Bytes) -> Response {
    let request: DemoRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => {
            let detail = format!(
                "invalid body: {e}: send {{\"task\": TASK_ID, \"agent\": one of {}}}",
                agents::names().join(", ")
            );
            return error(StatusCode::BAD_REQUEST, ErrorCode::InvalidJson, detail);
        }
    };
    let Ok(permit) = state.runs.clone().try_acquire_owned() else {
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::CapacityReached,
            "every demo slot is busy; retry in a moment",
        );
    };
    let env = state.env.clone();
    let result = tokio::task::spawn_blocking(move || {
        let run = demo::run(&env, &request);
        drop(permit);
        run
    })
    .await
    .unwrap_or_else(|e| Err(EnvError::execution(format!("internal error while running the demo: {e}"))));
    match result {
        Ok(run) => Json(run).into_response(),
        Err(e) => e.into_response(),
    }
}
