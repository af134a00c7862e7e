//! Any command-line agent on the environment's tasks (`mergeforge eval --agent-cmd`).
//!
//! An [`AgentCommand`] ([`command`]: a shell-words command line) runs once per episode in the
//! episode's repository, the merge stopped mid-way, inside the sandbox under its own
//! [`Policy`] (a wall-clock timeout, a network, the variables passed through, what it
//! may read, a home): [`run`]. It learns the task from [`brief`]: a file outside the
//! repository and environment variables. When it exits or times out the environment
//! grades the tree with its own judgement (the episode's `finish`), so an agent's
//! "solved" is the grader's, the reward the environment's: [`episode`] plays one task
//! ([`episode::play`]) or many in parallel ([`episode::play_all`]) and keeps each
//! episode's [`transcript`] (stdout, stderr, the final diff).
//!
//! This stage uses the environment ([`crate::env`]); nothing upstream imports it.

pub(crate) mod brief;
pub(crate) mod command;
pub(crate) mod episode;
pub(crate) mod run;
pub(crate) mod transcript;

pub(crate) use command::{AgentCommand, AgentNetwork, Policy};
pub(crate) use episode::{play_all, AgentEpisode};
