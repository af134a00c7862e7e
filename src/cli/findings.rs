//! `mergeforge findings`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use crate::judge::findings::{findings, Finding};
use crate::substrate::read_folder;

/// Print the static findings a tree has and its gold has not.
///
/// The judgement's part (c), on two folders: on every Python file where TREE differs
/// from GOLD, a pinned ruff (F811, F601, F602, F821, F401, F841) and the AST checks
/// (unreachable, repeated-block, overwritten, syntax) run on both versions, and the
/// tree's findings that gold has not (matched by file, rule and name, never by line)
/// are printed, one a line. Exit status: 0 no finding, 1 findings, 2 an error. The
/// first run installs ruff into the user cache (or set MERGEFORGE_RUFF to a ruff).
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct FindingsArgs {
    /// The reference tree (a task's gold).
    #[arg(long, value_name = "DIR")]
    pub(crate) gold: PathBuf,

    /// The tree to judge.
    #[arg(long, value_name = "DIR")]
    pub(crate) tree: PathBuf,

    /// Print the findings as a JSON array of {path, rule, name, line, message}.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn run(args: FindingsArgs) -> Result<ExitCode> {
    match judged(&args) {
        Ok(found) => {
            print(&found, args.json)?;
            Ok(ExitCode::from(if found.is_empty() { 0 } else { 1 }))
        }
        Err(err) => {
            eprintln!("error: {err:#}");
            Ok(ExitCode::from(2))
        }
    }
}

fn judged(args: &FindingsArgs) -> Result<Vec<Finding>> {
    let gold = read_folder(&args.gold).with_context(|| format!("--gold {}", args.gold.display()))?;
    let tree = read_folder(&args.tree).with_context(|| format!("--tree {}", args.tree.display()))?;
    findings(&tree, &gold)
}

fn print(found: &[Finding], json: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(found)?);
    } else {
        for finding in found {
            println!("{}:{}: {} {}", finding.path, finding.line, finding.rule, finding.message);
        }
    }
    Ok(())
}
