//! What runs and under which rules: an agent's command line ([`AgentCommand`]) and its
//! [`Policy`] (timeout, network, variables passed through, read-only paths, home).

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};

/// A command line, split as a POSIX shell splits words (quotes and backslashes; no
/// expansion, no pipes: wrap those in `sh -c '…'`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentCommand {
    /// The text as given.
    pub text: String,
    /// Its words; the first is the program.
    pub argv: Vec<String>,
}

impl AgentCommand {
    /// Splits `text` into words; an error when it is empty or not valid shell words.
    pub fn parse(text: &str) -> Result<AgentCommand> {
        let Some(argv) = shlex::split(text) else {
            bail!("agent command `{text}` cannot be split into words (an unclosed quote or a trailing backslash?)")
        };
        if argv.is_empty() {
            bail!(
                "agent command is empty: give the program to run and its arguments, e.g. --agent-cmd 'my-agent --yes'"
            );
        }
        Ok(AgentCommand { text: text.to_string(), argv })
    }

    /// The program's file name (`/opt/a/bin/mini --x` → `mini`): what records name,
    /// never the arguments (which may hold a key).
    pub fn program_name(&self) -> String {
        let program = std::path::Path::new(&self.argv[0]);
        program.file_name().map_or_else(|| self.argv[0].clone(), |n| n.to_string_lossy().into_owned())
    }
}

/// The network an agent gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AgentNetwork {
    /// Its own network namespace with only its own loopback: it reaches nothing, not
    /// even the host's loopback (a model server on 127.0.0.1 of the host).
    #[default]
    None,
    /// The host's network: needed to call a model API. Such an agent could also fetch
    /// public history, a commit-replay task's real commit included.
    Host,
}

/// What an agent may do, apart from the test runs' limits.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Wall-clock time before its process group is killed (reported timed out).
    pub timeout: Duration,
    pub network: AgentNetwork,
    /// Names of variables passed through from this process's environment (an API key):
    /// their values reach the agent and are never recorded.
    pub env: Vec<String>,
    /// Paths it may read (and execute) besides the system's folders and the tests'
    /// interpreter: its own installation, say. Everything else outside its episode is
    /// unreadable where Landlock is enforced.
    pub read_only: Vec<PathBuf>,
    /// A folder copied afresh into each episode as the agent's writable `HOME`
    /// (configuration, credentials files); `None`: an empty home.
    pub home: Option<PathBuf>,
    /// Run even where the host cannot confine it (no Landlock, no network namespace
    /// when `network` is `None`); refused otherwise.
    pub allow_unconfined: bool,
}

impl Policy {
    /// The default policy with `timeout`: no network, nothing passed through, an
    /// empty home, confinement required.
    pub fn with_timeout(timeout: Duration) -> Policy {
        Policy {
            timeout,
            network: AgentNetwork::None,
            env: Vec::new(),
            read_only: Vec::new(),
            home: None,
            allow_unconfined: false,
        }
    }
}
