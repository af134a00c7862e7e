//! `mergeforge schemas`: writes the JSON Schemas of the dataset format.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

/// Write the JSON Schemas of the dataset format (task.json, solution.json,
/// manifest.json), generated from the record types, as `<name>.schema.json` files.
/// The repository's `schemas/` folder is this command's output
/// (`mergeforge schemas --out schemas`).
#[derive(Debug, Args)]
pub struct SchemasArgs {
    /// Folder to write the schema files into (created if missing).
    #[arg(long, value_name = "DIR", default_value = "schemas")]
    pub out: PathBuf,
}

pub fn run(args: SchemasArgs) -> anyhow::Result<ExitCode> {
    for path in crate::bundle::schemas::write_all(&args.out)? {
        println!("{}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
