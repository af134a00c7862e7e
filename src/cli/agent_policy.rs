//! The flags of an agent command's sandbox policy, one set shared by `eval --agent-cmd`
//! and `gen-tasks --agent-rung`: its timeout, network, variables passed through,
//! read-only paths and home ([`crate::agent::Policy`]).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use clap::Args;

use crate::agent::{AgentNetwork, Policy};

/// How an agent command runs, apart from the test runs' limits.
#[derive(Debug, Args)]
pub(crate) struct AgentPolicyArgs {
    /// Wall-clock seconds the agent command may run per episode (default 1800); then its
    /// processes are killed, and the tree it left is graded.
    #[arg(long, value_name = "SECONDS")]
    pub(crate) agent_timeout: Option<u64>,

    /// The agent command's network (default none): `none` (its own namespace: not even
    /// the host's loopback) or `host` (needed to call a model API; such an agent can
    /// also fetch public history, a commit-replay task's real commit included).
    #[arg(long, value_name = "NET", value_enum)]
    pub(crate) agent_network: Option<NetworkArg>,

    /// A variable passed through to the agent command (e.g. an API key); repeatable.
    /// Its value is never recorded.
    #[arg(long, value_name = "NAME")]
    pub(crate) agent_env: Vec<String>,

    /// A path the agent command may read and execute (its installation); repeatable.
    #[arg(long, value_name = "PATH")]
    pub(crate) agent_ro: Vec<PathBuf>,

    /// A folder copied afresh into each episode as the agent command's writable HOME.
    #[arg(long, value_name = "DIR")]
    pub(crate) agent_home: Option<PathBuf>,
}

/// `--agent-network`'s values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum NetworkArg {
    /// Its own network namespace: nothing reachable, not even the host's loopback.
    None,
    /// The host's network.
    Host,
}

impl AgentPolicyArgs {
    /// The policy these flags give; `allow_unconfined` from `--allow-unconfined-run`.
    /// `owner` names the flag that gives the command (`--agent-cmd`, `--agent-rung`):
    /// a policy flag without it is refused.
    pub(crate) fn policy(&self, command_given: bool, owner: &str, allow_unconfined: bool) -> Result<Policy> {
        if !command_given {
            if let Some(flag) = self.first_given() {
                bail!("{flag} applies to the agent command; give {owner} 'CMD' or drop {flag}");
            }
        }
        let timeout = self.agent_timeout.unwrap_or(crate::agent::episode::DEFAULT_TIMEOUT.as_secs()).max(1);
        Ok(Policy {
            network: match self.agent_network.unwrap_or(NetworkArg::None) {
                NetworkArg::None => AgentNetwork::None,
                NetworkArg::Host => AgentNetwork::Host,
            },
            env: self.agent_env.clone(),
            read_only: self.agent_ro.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect(),
            home: self.agent_home.clone(),
            allow_unconfined,
            ..Policy::with_timeout(Duration::from_secs(timeout))
        })
    }

    /// The first of these flags given on the command line, if any.
    fn first_given(&self) -> Option<&'static str> {
        [
            (self.agent_timeout.is_some(), "--agent-timeout"),
            (self.agent_network.is_some(), "--agent-network"),
            (!self.agent_env.is_empty(), "--agent-env"),
            (!self.agent_ro.is_empty(), "--agent-ro"),
            (self.agent_home.is_some(), "--agent-home"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}
