//! The command-line surface: every flag is defined once here, with its documentation,
//! and `--help` is generated from it. Commands turn flags into library options and
//! print results; they hold no pipeline logic.

mod bench;
mod curriculum;
mod eval;
mod gen_tasks;
mod merge_shards;
mod publish;
mod recorded;
mod schemas;
mod serve;
mod values;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use bench::BenchArgs;
pub use curriculum::CurriculumArgs;
pub use eval::EvalArgs;
pub use gen_tasks::GenTasksArgs;
pub use merge_shards::MergeShardsArgs;
pub use publish::PublishArgs;
pub use schemas::SchemasArgs;
pub use serve::{EpisodeArgs, ServeArgs};

/// mergeforge manufactures verified merge-conflict tasks for training and evaluating
/// coding agents: real git conflicts made from Python repositories whose tests pass,
/// each proven solvable by running the tests.
#[derive(Debug, Parser)]
#[command(name = "mergeforge", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Generate a dataset version of test-verified merge-conflict tasks.
    GenTasks(GenTasksArgs),
    // About and long help come from `PublishArgs`'s doc comment.
    Publish(PublishArgs),
    /// Serve a dataset as an OpenEnv-compatible environment (HTTP + WebSocket).
    Serve(ServeArgs),
    /// Score a baseline agent (ours, theirs, union, tokens, gold) by playing episodes.
    Eval(EvalArgs),
    // About and long help come from `CurriculumArgs`'s doc comment.
    Curriculum(CurriculumArgs),
    // About and long help come from `MergeShardsArgs`'s doc comment.
    MergeShards(MergeShardsArgs),
    // About and long help come from `BenchArgs`'s doc comment.
    Bench(BenchArgs),
    // About and long help come from `SchemasArgs`'s doc comment.
    Schemas(SchemasArgs),
}

/// Runs a parsed command line; errors are returned for `main` to print.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::GenTasks(args) => gen_tasks::run(args),
        Command::Publish(args) => publish::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Curriculum(args) => curriculum::run(args),
        Command::MergeShards(args) => merge_shards::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Schemas(args) => schemas::run(args),
    }
}
