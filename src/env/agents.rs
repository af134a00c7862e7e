//! Baseline agents: they play episodes through the same actions any agent sends.
//!
//! * `noop`: finishes at once; what doing nothing earns;
//! * one agent per baseline resolver that names itself an agent
//!   ([`Resolver::agent`]: `ours`, `theirs`, `union` keeping ours first): it resolves
//!   every conflicted file with that resolver, one file per step, seeing only the
//!   observation;
//! * `gold`: submits the gold text of every file the gold merge changes (read from
//!   `solution.json`, so it knows the answer), files outside the conflicts first. It must
//!   reach the maximum reward on every task; it proves the reward is attainable.
//!
//! An agent returns `None` when it has nothing more to do; the runner then sends
//! `finish`.

use std::collections::BTreeSet;

use super::action::Action;
use super::dataset::TaskEntry;
use super::observation::Observation;
use crate::merge::markers;
use crate::resolve::{self, Resolver};

/// The agent that replays the gold merge.
pub(crate) const GOLD: &str = "gold";

/// The agent that does nothing.
pub(crate) const NOOP: &str = "noop";

/// The agent names `mergeforge eval --agent` accepts: `noop`, the resolvers' agents in
/// ladder order, then `gold`.
pub fn names() -> Vec<&'static str> {
    [NOOP].into_iter().chain(resolve::ALL.iter().filter_map(|r| r.agent())).chain([GOLD]).collect()
}

/// What the named agent does, in one sentence (`eval --help`).
pub(crate) fn description(name: &str) -> &'static str {
    match name {
        NOOP => "Finishes at once: what doing nothing earns.",
        GOLD => "Submits the gold merge: proves the maximum reward is attainable.",
        _ => resolve::ALL.iter().find(|r| r.agent() == Some(name)).map_or("", |r| r.description()),
    }
}

pub(crate) trait Agent: Send {
    /// The next action after `observation`, or `None` when done.
    fn act(&mut self, observation: &Observation) -> Option<Action>;
}

/// Makes the named agent for one task.
pub(crate) fn make(name: &str, task: &TaskEntry) -> Result<Box<dyn Agent>, String> {
    if name == GOLD {
        return Ok(Box::new(GoldAgent::new(task)));
    }
    if name == NOOP {
        return Ok(Box::new(NoopAgent));
    }
    let Some(resolver) = resolve::ALL.iter().copied().find(|r| r.agent() == Some(name)) else {
        return Err(format!("unknown agent `{name}`: expected one of {}", names().join(", ")));
    };
    Ok(Box::new(ResolverAgent { resolver, submitted: BTreeSet::new() }))
}

/// Finishes at once.
pub(crate) struct NoopAgent;

impl Agent for NoopAgent {
    fn act(&mut self, _: &Observation) -> Option<Action> {
        None
    }
}

/// Resolves each conflicted file with a baseline resolver.
pub(crate) struct ResolverAgent {
    resolver: &'static dyn Resolver,
    submitted: BTreeSet<String>,
}

impl Agent for ResolverAgent {
    fn act(&mut self, observation: &Observation) -> Option<Action> {
        let (path, text) = observation
            .files
            .iter()
            .find(|(path, text)| markers::has_markers(text) && !self.submitted.contains(*path))?;
        self.submitted.insert(path.clone());
        Some(Action::Resolve { file: path.clone(), resolution: resolve::resolve_text(self.resolver, text) })
    }
}

/// Replays the gold merge file by file.
pub(crate) struct GoldAgent {
    pending: Vec<(String, String)>,
}

impl GoldAgent {
    /// Replays the task's gold files (from its solution): those outside the conflicts first.
    pub(crate) fn new(task: &TaskEntry) -> Self {
        let conflicted: BTreeSet<&str> = task.task.conflicts.iter().map(|c| c.path.as_str()).collect();
        let (mut inside, outside): (Vec<_>, Vec<_>) = task
            .solution
            .files
            .iter()
            .map(|f| (f.path.clone(), f.gold.clone()))
            .partition(|(p, _)| conflicted.contains(p.as_str()));
        let mut pending = outside;
        pending.append(&mut inside);
        pending.reverse();
        GoldAgent { pending }
    }
}

impl Agent for GoldAgent {
    fn act(&mut self, _: &Observation) -> Option<Action> {
        let (file, resolution) = self.pending.pop()?;
        Some(Action::Resolve { file, resolution })
    }
}
