//! `mergeforge publish`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use serde_json::json;

use crate::publish::configs::{TaskConfig, DEFAULT_CONFIG};
use crate::publish::{self, PublishOptions, PublishReport, PushOptions, MAX_SHARD_BYTES};

/// Turn a dataset version into a Hugging Face Hub dataset repository folder, and
/// optionally push it with git.
///
/// Reads a finished version (OUT/DATASET/VERSION with manifest.json; every task.json
/// and bundle is checked against its recorded sha256) and writes HFDIR:
///
///   README.md                          dataset card: YAML front matter (license,
///                                      task_categories, tags, pretty_name,
///                                      size_categories, configs, dataset_info)
///                                      and a body (tasks, generation, counts,
///                                      fields, usage)
///   data/tasks/<level>/<split>-NNNNN.jsonl
///                                      one agent-facing record per generated task:
///                                      exactly task.json's fields and its bundle's
///                                      path; shards of at most --max-shard-bytes
///                                      (8 MiB)
///   data/tasks/real/<split>-NNNNN.jsonl
///                                      the same for the tasks made from a
///                                      project's history (merge-replay,
///                                      commit-replay), whatever their level
///   data/solutions/<split>-NNNNN.jsonl solution.json's fields and the split group
///   bundles/<task_id>.bundle           each task's repo.bundle (base, ours, theirs)
///   solutions/<task_id>.bundle         each task's solution.bundle (gold)
///   manifest.json                      the version's manifest, unchanged
///   .gitattributes                     *.bundle and any file over 8 MiB via LFS
///
/// Configs: `default` (every task), `easy`, `medium`, `hard` (generated tasks by
/// level) and `real` (tasks of a project's history), what an agent may see; and
/// `solutions` (the answers, which a trainer may leave out: the other configs never
/// read data/solutions/ or solutions/). Splits `train` and `test` by group: the
/// substrate, path and enclosing function, class or module level of the first
/// conflict hunk (for a task of the history, the real commit), so that no group is in
/// both (see --test-ratio). Load with
/// `datasets.load_dataset("OWNER/NAME", "hard")`. `serve` and `eval` read the folder
/// directly (solutions included).
///
/// HFDIR is built next to its final place and renamed in. An existing non-empty HFDIR
/// is left alone: identical content is reported as unchanged, anything else is
/// refused. The same version and flags give the same bytes.
///
/// With --push, HFDIR is committed (fixed author and date) on --branch of the remote
/// and tagged v<version>. Publishing the same content again pushes nothing; a
/// different content under an existing version tag is refused. Credentials come from
/// git's own configuration (credential helper, ssh agent), never from flags: a URL
/// with a password is refused. With git-lfs installed, bundles go through LFS (the
/// Hub requires it).
///
/// Example:
///   mergeforge publish --dataset generated/mergeforge-embedded/1.0.0 \
///     --out hub/mergeforge-embedded --repo-id you/mergeforge-embedded \
///     --push https://huggingface.co/datasets/you/mergeforge-embedded
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
// These comments are `--help` pages, printed verbatim: `<level>` and bare URLs are text
// for a terminal, not rustdoc markup.
#[allow(rustdoc::invalid_html_tags, rustdoc::bare_urls)]
pub(crate) struct PublishArgs {
    /// The finished dataset version folder, e.g. generated/mergeforge-embedded/1.0.0.
    #[arg(long, value_name = "DIR")]
    pub(crate) dataset: PathBuf,

    /// The folder to write (the dataset repository's content).
    #[arg(long, value_name = "HFDIR")]
    pub(crate) out: PathBuf,

    /// The Hub repository (OWNER/NAME), used in the card's usage examples.
    #[arg(long, value_name = "OWNER/NAME")]
    pub(crate) repo_id: Option<String>,

    /// License id for the card (a Hub license id: mit, apache-2.0, cc-by-4.0, other, ...).
    #[arg(long, value_name = "ID", default_value = "mit")]
    pub(crate) license: String,

    /// The card's pretty_name. Default: "<dataset> <version>".
    #[arg(long, value_name = "NAME")]
    pub(crate) pretty_name: Option<String>,

    /// Extra card tags, comma-separated (added to: code, git, merge-conflicts, python,
    /// reinforcement-learning, software-engineering, mergeforge).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub(crate) tags: Vec<String>,

    /// Fraction of split groups in the test split, 0 to 1. A task is in test when the
    /// first 8 bytes of sha256(its group), as a fraction, are below it: the split depends
    /// on the group alone (`<substrate>:<path>:<qualname>` of the first conflict hunk).
    #[arg(long, value_name = "RATIO", default_value_t = 0.2)]
    pub(crate) test_ratio: f64,

    /// Largest data shard in bytes (at most 8388608 = 8 MiB). A shard is closed when the
    /// next record would take it over.
    #[arg(long, value_name = "BYTES", default_value_t = MAX_SHARD_BYTES)]
    pub(crate) max_shard_bytes: u64,

    /// Commit HFDIR to this git remote and tag it v<version>: the Hub's
    /// https://huggingface.co/datasets/OWNER/NAME, an ssh URL, or a path to a bare
    /// repository. Credentials come from git's configuration.
    #[arg(long, value_name = "GIT_URL")]
    pub(crate) push: Option<String>,

    /// The branch --push commits to.
    #[arg(long, value_name = "NAME", default_value = "main", requires = "push")]
    pub(crate) branch: String,

    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub(crate) json: bool,
}

pub(crate) fn run(args: PublishArgs) -> Result<ExitCode> {
    let options = PublishOptions {
        dataset_dir: args.dataset.clone(),
        out: args.out.clone(),
        repo_id: args.repo_id.clone(),
        license: args.license.clone(),
        pretty_name: args.pretty_name.clone(),
        tags: args.tags.iter().map(|t| t.trim().to_string()).filter(|t| !t.is_empty()).collect(),
        test_ratio: args.test_ratio,
        max_shard_bytes: args.max_shard_bytes,
        push: args.push.as_ref().map(|url| PushOptions { url: url.clone(), branch: args.branch.clone() }),
    };
    let report = publish::publish(&options)?;
    if let Some(push) = &report.push {
        for warning in &push.warnings {
            eprintln!("warning: {warning}");
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report_json(&report))?);
    } else {
        print_summary(&report);
    }
    Ok(ExitCode::SUCCESS)
}

fn report_json(report: &PublishReport) -> serde_json::Value {
    let mut rows = serde_json::Map::new();
    for ((config, split), n) in &report.rows {
        let entry = rows.entry(config.clone()).or_insert_with(|| json!({}));
        entry[split] = json!(n);
    }
    json!({
        "out": report.out,
        "dataset": report.dataset,
        "version": report.version,
        "result": report.write.name(),
        "tasks": report.tasks,
        "rows": rows,
        "shards": report.shards.iter().map(|(path, bytes)| json!({"path": path, "bytes": bytes})).collect::<Vec<_>>(),
        "files": report.files,
        "bytes": report.bytes,
        "lfs_by_size": report.large_files,
        "push": report.push.as_ref().map(|p| json!({
            "remote": p.remote,
            "branch": p.branch,
            "tag": p.tag,
            "commit": p.commit,
            "tree": p.tree,
            "result": p.result.name(),
            "lfs": p.lfs,
            "warnings": p.warnings,
        })),
    })
}

fn print_summary(report: &PublishReport) {
    let verb = match report.write {
        publish::FolderWrite::Created => "wrote",
        publish::FolderWrite::Unchanged => "unchanged (identical content already there)",
    };
    println!(
        "{verb} {} ({} {}, {} tasks): {} files, {:.1} MiB",
        report.out.display(),
        report.dataset,
        report.version,
        report.tasks,
        report.files,
        report.bytes as f64 / (1024.0 * 1024.0)
    );
    println!();
    println!("{:<10}{:>8}{:>8}", "config", "train", "test");
    // `default`, the task configs in the card's order, then `solutions`.
    let order = |c: &str| {
        let mut task_configs = std::iter::once(DEFAULT_CONFIG).chain(TaskConfig::ALL.map(TaskConfig::name));
        task_configs.position(|n| n == c).unwrap_or(usize::MAX)
    };
    let mut configs: Vec<&String> = report.rows.keys().map(|(c, _)| c).collect();
    configs.dedup();
    configs.sort_by_key(|c| order(c));
    for config in configs {
        let get = |split: &str| report.rows.get(&(config.clone(), split.to_string())).copied().unwrap_or(0);
        println!("{config:<10}{:>8}{:>8}", get("train"), get("test"));
    }
    let largest = report.shards.iter().map(|(_, b)| *b).max().unwrap_or(0);
    println!();
    println!("{} data shards, largest {} bytes", report.shards.len(), largest);
    if let Some(push) = &report.push {
        let what = match push.result {
            publish::push::PushResult::Pushed => "pushed commit",
            publish::push::PushResult::TaggedHead => "tagged the existing commit",
            publish::push::PushResult::AlreadyPublished => "already published as commit",
        };
        println!("{what} {} to {} ({} {}, lfs: {})", push.commit, push.remote, push.branch, push.tag, push.lfs);
    }
}
