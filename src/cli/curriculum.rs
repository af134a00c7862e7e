//! `mergeforge curriculum`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use serde_json::json;

use crate::bundle::dataset::WriteResult;
use crate::curriculum::{self, RefreshOptions, RefreshReport, TaskChange};

/// Make the next dataset version from agents' results on this one.
///
/// Reads RESULTS (JSON lines: {"task_id", "success": bool, "reward"?: number,
/// "agent"?: str, "run"?: str}, several per task allowed) and, per task:
///   - solved >= 90% over >= 4 attempts: moved to the retired split;
///   - never solved over >= 8 attempts: marked frontier-hard (level hard);
///   - otherwise, with >= 2 attempts: re-levelled by solve rate (easy >= 70%,
///     medium >= 30%, hard below); the ladder's level stays in structural_level.
///
/// (family, level) cells left with fewer tasks than before are refilled by generating
/// new tasks from the same substrates with a new seed. The next version (minor bump)
/// is written to OUT/DATASET/VERSION with a CHANGELOG.md and the parent version in
/// its manifest. Problems in RESULTS (malformed lines, unknown task ids, duplicate
/// runs) are all reported with line numbers, and nothing is written.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct CurriculumArgs {
    /// The dataset version to refresh (a folder with manifest.json), or a dataset
    /// folder (its highest version is used).
    #[arg(long, value_name = "DIR")]
    pub(crate) dataset: PathBuf,

    /// Per-attempt results, one JSON object per line.
    #[arg(long, value_name = "FILE.jsonl")]
    pub(crate) results: PathBuf,

    /// Output root; the new version is written to OUT/DATASET/VERSION.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: PathBuf,

    /// Test-outcome cache for new tasks. Default: OUT/.mergeforge-cache.
    #[arg(long, value_name = "DIR")]
    pub(crate) cache: Option<PathBuf>,

    /// Seed for new tasks. Default: the parent version's seed + 1.
    #[arg(long)]
    pub(crate) seed: Option<u64>,

    /// Parallel workers (test runs at once). Output does not depend on it.
    #[arg(long, value_name = "N")]
    pub(crate) jobs: Option<usize>,

    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub(crate) json: bool,

    /// Do not draw a progress bar.
    #[arg(long)]
    pub(crate) no_progress: bool,

    /// Refill without the mergiraf rung on the ladder (as for gen-tasks; also when the
    /// recorded gen-tasks command has --no-mergiraf). Without it, a refill runs mergiraf
    /// from PATH or installs it into the cache first.
    #[arg(long)]
    pub(crate) no_mergiraf: bool,
}

pub(crate) fn run(args: CurriculumArgs) -> Result<ExitCode> {
    let mut command = vec!["mergeforge".to_string(), "curriculum".to_string()];
    command.extend(["--dataset".into(), args.dataset.display().to_string()]);
    command.extend(["--results".into(), args.results.display().to_string()]);
    if let Some(seed) = args.seed {
        command.extend(["--seed".into(), seed.to_string()]);
    }
    let options = RefreshOptions {
        dataset: args.dataset.clone(),
        results: args.results.clone(),
        out: args.out.clone(),
        cache_dir: args.cache.clone(),
        seed: args.seed,
        jobs: args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2)),
        progress: !args.no_progress && !args.json,
        command,
    };
    let plan = curriculum::plan(&options)?;
    let recipe = match plan.refill_command() {
        Some(command) => {
            let mut recipe = super::recorded::options_from_command(command?)?;
            recipe.no_mergiraf |= args.no_mergiraf;
            crate::resolve::mergiraf::prepare(recipe.no_mergiraf, options.progress)?;
            Some(recipe)
        }
        None => None,
    };
    let report = plan.finish(recipe, &options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report_json(&report))?);
    } else {
        print_summary(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn ids(changes: &[TaskChange]) -> Vec<&str> {
    changes.iter().map(|c| c.id.as_str()).collect()
}

fn report_json(report: &RefreshReport) -> serde_json::Value {
    let c = &report.changes;
    json!({
        "version_dir": report.version_dir,
        "result": match report.write { WriteResult::Created => "created", WriteResult::Reproduced => "reproduced" },
        "parent": report.manifest.parent.as_ref().map(|p| p.version.clone()),
        "version": report.manifest.version,
        "tasks": report.manifest.counts.tasks,
        "retired_total": report.manifest.counts.retired,
        "by_level": report.manifest.counts.by_level,
        "ladder": report.manifest.ladder,
        "attempts": c.attempts,
        "retired": ids(&c.retired),
        "frontier_hard": ids(&c.frontier_hard),
        "relevelled": c.relevelled.iter().map(|t| json!({"id": t.id, "from": t.from, "to": t.to})).collect::<Vec<_>>(),
        "added": c.added.iter().map(|t| json!({"id": t.id, "family": t.family, "level": t.to})).collect::<Vec<_>>(),
        "shortfall": c.shortfall.iter().map(|s| json!({"cell": s.cell.to_string(), "wanted": s.wanted, "added": s.kept})).collect::<Vec<_>>(),
    })
}

fn print_summary(report: &RefreshReport) {
    let c = &report.changes;
    let verb = match report.write {
        WriteResult::Created => "wrote",
        WriteResult::Reproduced => "reproduced (identical bytes already there)",
    };
    println!(
        "{verb} {} tasks ({} retired) to {}",
        report.manifest.counts.tasks,
        report.manifest.counts.retired,
        report.version_dir.display()
    );
    println!("{}", super::gen_summary::ladder_line(&report.manifest.ladder));
    println!(
        "{} attempts: retired {}, frontier-hard {}, re-levelled {}, added {}",
        c.attempts,
        c.retired.len(),
        c.frontier_hard.len(),
        c.relevelled.len(),
        c.added.len()
    );
    for s in &c.shortfall {
        println!("not refilled: {} added {} of {} (candidates exhausted)", s.cell, s.kept, s.wanted);
    }
    println!("see {}", report.version_dir.join("CHANGELOG.md").display());
}
