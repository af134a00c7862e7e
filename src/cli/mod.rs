//! The command-line surface: every flag is defined once here, with its documentation,
//! and `--help` is generated from it. Commands turn flags into library options and
//! print results; they hold no pipeline logic.

mod bench;
mod curriculum;
mod eval;
mod gen_tasks;
mod merge_shards;
mod publish;
mod serve;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use bench::BenchArgs;
pub use curriculum::CurriculumArgs;
pub use eval::EvalArgs;
pub use gen_tasks::GenTasksArgs;
pub use merge_shards::MergeShardsArgs;
pub use publish::PublishArgs;
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
    /// Score a baseline agent (ours, theirs, union, gold) by playing episodes.
    Eval(EvalArgs),
    // About and long help come from `CurriculumArgs`'s doc comment.
    Curriculum(CurriculumArgs),
    // About and long help come from `MergeShardsArgs`'s doc comment.
    MergeShards(MergeShardsArgs),
    // About and long help come from `BenchArgs`'s doc comment.
    Bench(BenchArgs),
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
    }
}

/// The value parser of a flag taking catalogue values (`--families`): the possible values
/// (listed by `--help`) come from the catalogue's enum, and a bad value gets one line
/// naming it and the known ones.
#[derive(Clone)]
pub(crate) struct CatalogueValue<E> {
    what: &'static str,
    values: std::marker::PhantomData<E>,
}

impl<E> CatalogueValue<E> {
    pub(crate) fn new(what: &'static str) -> Self {
        CatalogueValue { what, values: std::marker::PhantomData }
    }
}

impl<E: clap::ValueEnum + Clone + Send + Sync + 'static> clap::builder::TypedValueParser for CatalogueValue<E> {
    type Value = E;

    fn parse_ref(&self, _: &clap::Command, _: Option<&clap::Arg>, value: &std::ffi::OsStr) -> Result<E, clap::Error> {
        let text = value.to_string_lossy();
        E::from_str(text.trim(), false).map_err(|_| {
            let known: Vec<String> =
                E::value_variants().iter().filter_map(|v| v.to_possible_value()).map(|p| p.get_name().into()).collect();
            let message = format!("unknown {} `{text}`; known: {}\n", self.what, known.join(", "));
            clap::Error::raw(clap::error::ErrorKind::InvalidValue, message)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(E::value_variants().iter().filter_map(|v| v.to_possible_value())))
    }
}
