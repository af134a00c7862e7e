//! `mergeforge regenerate`: writes every file generated from the code — the JSON
//! Schemas of the dataset format (`schemas/`) and the catalogue tables
//! (`docs/reference/`) — or, with `--check`, names the committed ones that differ.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;

use crate::pytest::cache::write_atomically;

/// Write every generated file of the repository: the JSON Schemas of the dataset format
/// (`schemas/<name>.schema.json`, from the record types) and the catalogue tables
/// (docs/reference/*.md: families, intent kinds, mutation operators, the difficulty
/// ladder, the environment's tools, from the catalogues' entries). Run it after adding
/// or changing a catalogue entry or a record type; a test fails until the committed
/// files equal the generated ones. With --check, nothing is written: the files that
/// differ are named and the exit code is 1.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RegenerateArgs {
    /// The repository's root folder.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub(crate) root: PathBuf,

    /// Write nothing; exit 1 when a committed file differs from the generated one.
    #[arg(long)]
    pub(crate) check: bool,
}

pub(crate) fn run(args: RegenerateArgs) -> Result<ExitCode> {
    let mut stale = Vec::new();
    for (path, bytes) in generated_files()? {
        let target = args.root.join(&path);
        let current = std::fs::read(&target).ok();
        if current.as_deref() == Some(bytes.as_slice()) {
            continue;
        }
        if args.check {
            stale.push(path);
            continue;
        }
        write_atomically(&target, &bytes).with_context(|| format!("writing {}", target.display()))?;
        println!("{}", path.display());
    }
    if stale.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    for path in &stale {
        eprintln!("{} differs from the generated file; run `mergeforge regenerate`", path.display());
    }
    Ok(ExitCode::from(1))
}

/// Every generated file: its path relative to the repository root, and its bytes.
pub fn generated_files() -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut files = Vec::new();
    for (name, schema) in crate::bundle::schemas::all() {
        files.push((Path::new("schemas").join(format!("{name}.schema.json")), crate::bundle::schemas::bytes(&schema)?));
    }
    for (name, text) in super::reference::tables() {
        files.push((Path::new(super::reference::FOLDER).join(name), text.into_bytes()));
    }
    Ok(files)
}
