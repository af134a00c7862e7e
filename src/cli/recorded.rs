//! A recorded `gen-tasks` command line (as a manifest keeps it) turned back into library
//! options, for the commands that re-run a generation (`curriculum`, `bench`).

use anyhow::{bail, Result};
use clap::Parser;

use super::agent_rung::is_recorded_agent;
use super::gen_tasks::options_from;
use super::{Cli, Command};
use crate::pipeline::GenOptions;

/// The library options for a recorded `gen-tasks` command line (argv, as in a manifest).
pub(crate) fn options_from_command(argv: &[String]) -> Result<GenOptions> {
    let cli = Cli::try_parse_from(argv).map_err(|e| {
        let message = e.to_string();
        let first = message.lines().next().unwrap_or("").trim_start_matches("error: ").to_string();
        anyhow::anyhow!("recorded command `{}` does not parse: {first}", argv.join(" "))
    })?;
    match cli.command {
        Command::GenTasks(args) if args.agent.agent_rung.as_deref().is_some_and(is_recorded_agent) => bail!(
            "recorded command `{}` levelled with an agent whose command a manifest does not keep; \
             run gen-tasks with --agent-rung CMD yourself",
            argv.join(" ")
        ),
        Command::GenTasks(args) => options_from(&args),
        _ => bail!("recorded command `{}` is not a gen-tasks command", argv.join(" ")),
    }
}
