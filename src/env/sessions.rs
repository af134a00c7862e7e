//! What the transports share (`server.rs`: WebSocket and HTTP; `mcp.rs`: MCP): the
//! server's state, a session (one episode at a time), the `max_sessions` slots, the
//! MCP session table, and the episode work on tokio's blocking pool. Neither transport
//! is imported here, so they depend on this file and never on each other's state.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::action::Action;
use super::episode::Episode;
use super::observation::{EpisodeState, StepReply};
use super::{EnvError, Environment, ResetRequest};

/// Limits of the server itself (episode limits live in [`super::EnvConfig`]).
#[derive(Debug, Clone)]
pub(crate) struct ServeOptions {
    pub(crate) addr: SocketAddr,
    /// Sessions at once: WebSocket connections and MCP sessions together.
    pub(crate) max_sessions: usize,
    /// Largest WebSocket message or HTTP body, in bytes. Above this the connection is
    /// closed (WebSocket) or refused with 413 (HTTP): keep it above the resolution limit
    /// so that oversized resolutions get a clear error frame instead.
    pub(crate) max_message_bytes: usize,
}

/// A session unused for this long is dropped (with its episode), freeing its slot.
pub(crate) const IDLE_LIMIT: Duration = Duration::from_secs(30 * 60);

pub(super) type Session = Arc<Mutex<Option<Episode>>>;

pub(super) struct AppState {
    pub(super) env: Arc<Environment>,
    pub(super) options: ServeOptions,
    pub(super) active: AtomicUsize,
    pub(super) default_session: Session,
    pub(super) mcp: McpSessions,
}

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

pub(super) fn do_state(env: &Environment, session: &Session) -> EpisodeState {
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

/// One MCP session.
pub(super) struct McpSession {
    pub(super) session: Session,
    pub(super) last_used: Mutex<Instant>,
    pub(super) _slot: Slot,
}

/// The open MCP sessions, by id.
#[derive(Default)]
pub(crate) struct McpSessions(Mutex<HashMap<String, Arc<McpSession>>>);

impl McpSessions {
    pub(super) fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<McpSession>>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(super) fn get(&self, id: &str) -> Option<Arc<McpSession>> {
        let session = self.map().get(id).cloned()?;
        *session.last_used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
        Some(session)
    }

    /// Drops sessions idle past [`IDLE_LIMIT`]; their episodes go on the blocking pool.
    pub(super) fn expire(&self) {
        let expired: Vec<Arc<McpSession>> = {
            let mut map = self.map();
            let old: Vec<String> = map
                .iter()
                .filter(|(_, s)| s.last_used.lock().unwrap_or_else(|p| p.into_inner()).elapsed() > IDLE_LIMIT)
                .map(|(id, _)| id.clone())
                .collect();
            old.iter().filter_map(|id| map.remove(id)).collect()
        };
        if !expired.is_empty() {
            tokio::task::spawn_blocking(move || drop(expired));
        }
    }
}
