//! The command-line surface: every flag is defined once here, with its documentation,
//! and `--help` is generated from it. Commands turn flags into library options and
//! print results; they hold no pipeline logic.

mod agent_policy;
mod agent_rung;
mod bench;
mod curriculum;
mod eval;
mod findings;
mod gen_summary;
mod gen_tasks;
mod merge_shards;
mod onboard;
mod publish;
mod recorded;
mod reference;
mod regenerate;
mod repos;
mod resolve;
mod resolve_merge;
mod serve;
mod shard_report;
mod stderr_log;
mod values;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub(crate) use bench::BenchArgs;
pub(crate) use curriculum::CurriculumArgs;
pub(crate) use eval::EvalArgs;
pub(crate) use findings::FindingsArgs;
pub(crate) use gen_tasks::GenTasksArgs;
pub(crate) use merge_shards::MergeShardsArgs;
pub(crate) use onboard::OnboardArgs;
pub(crate) use publish::PublishArgs;
pub use regenerate::{generated_files, RegenerateArgs};
pub(crate) use resolve::ResolveArgs;
pub(crate) use serve::ServeArgs;

/// mergeforge manufactures verified merge-conflict tasks for training and evaluating
/// coding agents: real git conflicts made from Python repositories whose tests pass,
/// each proven solvable by running the tests.
#[derive(Debug, Parser)]
#[command(name = "mergeforge", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    // About and long help come from `GenTasksArgs`'s doc comment.
    GenTasks(GenTasksArgs),
    // About and long help come from `OnboardArgs`'s doc comment.
    Onboard(OnboardArgs),
    // About and long help come from `PublishArgs`'s doc comment.
    Publish(PublishArgs),
    /// Serve a dataset as an OpenEnv-compatible environment (HTTP + WebSocket).
    Serve(ServeArgs),
    /// Score an agent by playing episodes: a built-in one (`--agent` lists them) or any
    /// command-line agent (`--agent-cmd`).
    Eval(EvalArgs),
    // About and long help come from `ResolveArgs`'s doc comment.
    Resolve(ResolveArgs),
    // About and long help come from `CurriculumArgs`'s doc comment.
    Curriculum(CurriculumArgs),
    // About and long help come from `MergeShardsArgs`'s doc comment.
    MergeShards(MergeShardsArgs),
    // About and long help come from `BenchArgs`'s doc comment.
    Bench(BenchArgs),
    // About and long help come from `FindingsArgs`'s doc comment.
    Findings(FindingsArgs),
    // About and long help come from `RegenerateArgs`'s doc comment.
    Regenerate(RegenerateArgs),
}

/// The command line's definition, with what the catalogues add at run time:
/// `gen-tasks --help` lists the ladder's rungs and `eval --agent` takes the agents of
/// the resolver catalogue as its possible values.
pub(crate) fn command() -> clap::Command {
    use clap::CommandFactory;
    Cli::command()
        .mut_subcommand("gen-tasks", |c| c.after_long_help(reference::ladder_help()))
        .mut_subcommand("eval", |c| c.mut_arg("agent", |a| a.value_parser(eval::agent_values())))
        .mut_subcommand("resolve", |c| c.mut_arg("resolver", |a| a.value_parser(resolve::resolver_values())))
}

/// Parses the process's arguments against [`command`] (exits with clap's message on a
/// bad command line, as `Parser::parse` does), and sends the library's log records to
/// stderr.
pub fn parse() -> Cli {
    use clap::FromArgMatches;
    stderr_log::init();
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

/// Runs a parsed command line; errors are returned for `main` to print.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::GenTasks(args) => gen_tasks::run(args),
        Command::Onboard(args) => onboard::run(args),
        Command::Publish(args) => publish::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Resolve(args) => resolve::run(args),
        Command::Curriculum(args) => curriculum::run(args),
        Command::MergeShards(args) => merge_shards::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Findings(args) => findings::run(args),
        Command::Regenerate(args) => regenerate::run(args),
    }
}
