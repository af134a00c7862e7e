//! `mergeforge onboard`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

/// Print the substrate.toml detected for a Python repository, for review.
///
/// Reads PATH (a git repository at HEAD, or a plain folder such as an unpacked sdist)
/// the way `gen-tasks --substrate PATH` does without a config, and prints the
/// configuration it would use, each key after a comment saying why: the layout and the
/// packages the tests import (source_dirs), the test folders and command (pytest keeps
/// reading the project's own settings), the dependencies (runtime ones, the test
/// extras, dependency groups, requirement files and tox deps), and the interpreter
/// (requires-python and the classifiers, among the interpreters present). Nothing is
/// run: the tests failing or flipping at HEAD are deselected by gen-tasks, which lists
/// them in the manifest. Save the output as PATH/substrate.toml to change a key; a
/// config sets only the keys it names, detection the rest.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct OnboardArgs {
    /// The repository or folder.
    #[arg(value_name = "PATH")]
    pub(crate) path: PathBuf,
}

pub(crate) fn run(args: OnboardArgs) -> Result<ExitCode> {
    print!("{}", crate::substrate::onboard(&args.path)?);
    Ok(ExitCode::SUCCESS)
}
