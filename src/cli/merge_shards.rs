//! `mergeforge merge-shards`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

use super::gen_summary::{print_summary, report_json};
use crate::pipeline::shard;

/// Combine the shard folders of a `gen-tasks --shard K/N` run into one dataset version.
///
/// Checks that exactly shards 0..N-1 of one run are given (same command, seed,
/// substrates and generator), replays their verdicts in the run's global order with the
/// same selection an unsharded run uses (per-cell or quotas, near-duplicates,
/// --max-tasks), and writes OUT/DATASET/VERSION with the manifest an unsharded run
/// writes. With the same outcome cache (test durations are recorded measurements), the
/// version is byte-identical to an unsharded run's.
///
///   mergeforge gen-tasks --shard 0/3 --out shards ...   (and 1/3, 2/3, anywhere)
///   mergeforge merge-shards generated shards/mergeforge-embedded/1.0.0.shard-*
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct MergeShardsArgs {
    /// Output root; the version is written to OUT/DATASET/VERSION.
    #[arg(value_name = "OUT")]
    pub(crate) out: PathBuf,

    /// The shard folders (OUT/DATASET/VERSION.shard-K-of-N), every one of the run.
    #[arg(value_name = "SHARD_DIR", required = true)]
    pub(crate) shards: Vec<PathBuf>,

    /// Print the report as JSON on stdout instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn run(args: MergeShardsArgs) -> Result<ExitCode> {
    let report = shard::merge_shards(&args.out, &args.shards)?;
    if args.json {
        let mut value = report_json(&report);
        value["shards"] = serde_json::json!(args.shards.len());
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print_summary(&report);
    }
    Ok(ExitCode::SUCCESS)
}
