//! `gen-tasks`' agent rung flags (`--agent-rung CMD` and its options) and how a recorded
//! command line keeps them (the command's name only, never the command).

use anyhow::{bail, Result};
use clap::Args;

use super::agent_policy::AgentPolicyArgs;
use crate::pipeline::AgentRungOptions;

/// The agent rung's flags.
#[derive(Debug, Args)]
pub(crate) struct AgentRungArgs {
    /// An external agent as the ladder's top rung: the command runs as `eval --agent-cmd`
    /// runs it, in the workspace of each candidate that no resolver solves (the
    /// repository mid-merge), and a task it solves in any of --agent-rung-tries tries is
    /// medium, with its rung recorded as `agent`. Every try is cached under --cache by
    /// (the workspace, this command string, --agent-label, the try), so a re-run plays no
    /// agent and writes the same bytes. The manifest records the command's name (its
    /// program's file name) and the label, never the command itself.
    #[arg(long, value_name = "CMD")]
    pub(crate) agent_rung: Option<String>,

    /// Tries the agent rung has per candidate (default 1).
    #[arg(long, value_name = "K", requires = "agent_rung")]
    pub(crate) agent_rung_tries: Option<u32>,

    /// What the agent rung's command does not say, such as the model it calls
    /// (e.g. `gpt-5-mini`): part of the cache's key, and recorded in the manifest.
    #[arg(long, value_name = "LABEL", requires = "agent_rung")]
    pub(crate) agent_label: Option<String>,

    /// The agent command's sandbox policy, as `eval --agent-cmd` takes it.
    #[command(flatten)]
    pub(crate) policy: AgentPolicyArgs,
}

impl AgentRungArgs {
    /// The agent rung these flags ask for, if any.
    pub(crate) fn options(&self) -> Result<Option<AgentRungOptions>> {
        let args = self;
        let policy = args.policy.policy(args.agent_rung.is_some(), "--agent-rung", false)?;
        let Some(command) = &args.agent_rung else { return Ok(None) };
        match shlex::split(command) {
            Some(argv) if !argv.is_empty() => {}
            Some(_) => bail!("--agent-rung is empty; give the command that runs the agent"),
            None => bail!("--agent-rung `{command}` has an unclosed quote or a trailing backslash"),
        }
        let tries = args.agent_rung_tries.unwrap_or(1);
        if tries == 0 {
            bail!("--agent-rung-tries must be at least 1");
        }
        if let Some(label) = args.agent_label.as_deref().filter(|l| l.is_empty() || l.contains(['\n', '\r'])) {
            bail!("--agent-label {label:?}: give a non-empty name on one line");
        }
        Ok(Some(AgentRungOptions { command: command.clone(), label: args.agent_label.clone(), tries, policy }))
    }
}

/// How the recorded command line keeps the agent rung: the command's name in angle
/// brackets in place of the command (which may hold a key or a user's path), the label
/// and the tries. Such a line documents the run; it cannot run the agent again
/// ([`is_recorded_agent`]).
pub(super) fn record(rung: &AgentRungOptions) -> Vec<String> {
    let mut out = vec!["--agent-rung".to_string(), format!("<{}>", rung.name())];
    if let Some(label) = &rung.label {
        out.extend(["--agent-label".to_string(), label.clone()]);
    }
    if rung.tries != 1 {
        out.extend(["--agent-rung-tries".to_string(), rung.tries.to_string()]);
    }
    out
}

/// Whether an `--agent-rung` value is the placeholder a recorded command line keeps.
pub(crate) fn is_recorded_agent(command: &str) -> bool {
    command.starts_with('<') && command.ends_with('>')
}
