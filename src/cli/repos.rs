//! `gen-tasks --repos FILE`: the list's repositories fetched into the run's cache, made
//! substrates, and one line per repository in the report (onboarded or skipped, how it
//! was configured, its tasks, its reason).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use serde::Serialize;

use crate::bundle::manifest::SubstrateEntry;
use crate::snapshot::content_id;
use crate::substrate::repos::{fetch, Entry, RepoList};
use crate::substrate::SubstrateSpec;

/// A list's entries and the folder each was fetched into (or why not).
pub(super) struct Fetched {
    pub(super) list: RepoList,
    results: Vec<std::result::Result<PathBuf, String>>,
}

/// Fetches every entry of `list` into `cache_dir/repos/` (each once; a rerun reuses
/// them). A failed fetch is kept as its reason: the run skips that repository.
pub(super) fn fetch_all(list: RepoList, cache_dir: &Path) -> Fetched {
    let swept = fetch::sweep(cache_dir);
    if swept > 0 {
        log::info!("removed {swept} partial fetches left by killed runs");
    }
    // Two entries with the same files (one repository listed two ways) would make the
    // same tasks under the same ids: the later one is skipped.
    let mut trees: Vec<(String, usize)> = Vec::new();
    let mut results = Vec::new();
    for entry in &list.entries {
        let result = fetch::folder(&entry.source, cache_dir).and_then(|path| {
            let (files, _) = crate::substrate::read_files(&path)?;
            let tree = content_id(&files);
            if let Some((_, line)) = trees.iter().find(|(t, _)| *t == tree) {
                bail!("the same files as line {line}; list each repository once");
            }
            trees.push((tree, entry.line));
            Ok(path)
        });
        results.push(result.map_err(|err| {
            let reason = one_line(&format!("{err:#}"));
            log::warn!("{}:{}: {} skipped: {reason}", list.file.display(), entry.line, entry.text);
            reason
        }));
    }
    Fetched { list, results }
}

impl Fetched {
    /// The substrates of the fetched entries, in list order; `test_command` for those
    /// without a config (`--test-cmd`).
    pub(super) fn specs(&self, test_command: &Option<Vec<String>>) -> Vec<SubstrateSpec> {
        self.fetched()
            .map(|(entry, path)| SubstrateSpec {
                path: path.clone(),
                config_file: entry.config.clone(),
                test_command: test_command.clone().filter(|_| entry.config.is_none()),
            })
            .collect()
    }

    fn fetched(&self) -> impl Iterator<Item = (&Entry, &PathBuf)> {
        self.list.entries.iter().zip(&self.results).filter_map(|(e, r)| r.as_ref().ok().map(|p| (e, p)))
    }

    /// One line per entry. `skipped` is the run's skipped substrates (by path);
    /// `substrates` the usable ones in order, with their tasks (`None` for a shard,
    /// which cannot count tasks).
    pub(super) fn report(self, skipped: &[(String, String)], substrates: Option<&[SubstrateEntry]>) -> RepoReport {
        let lines = self.lines(skipped, substrates);
        RepoReport { file: self.list.file, lines }
    }

    fn lines(&self, skipped: &[(String, String)], substrates: Option<&[SubstrateEntry]>) -> Vec<RepoLine> {
        let mut usable = 0;
        let mut lines = Vec::new();
        for (entry, result) in self.list.entries.iter().zip(&self.results) {
            let mut line = RepoLine {
                line: entry.line,
                entry: entry.text.clone(),
                folder: None,
                config: "detected",
                onboarded: false,
                substrate: None,
                tasks: None,
                deselected: Vec::new(),
                reason: None,
            };
            match result {
                Err(reason) => line.reason = Some(reason.clone()),
                Ok(path) => {
                    line.folder = Some(path.clone());
                    line.config = config_kind(entry, path);
                    let shown = path.display().to_string();
                    if let Some((_, reason)) = skipped.iter().find(|(p, _)| *p == shown) {
                        line.reason = Some(one_line(reason));
                    } else {
                        line.onboarded = true;
                        if let Some(s) = substrates.and_then(|s| s.get(usable)) {
                            line.substrate = Some(s.name.clone());
                            line.tasks = Some(s.tasks);
                            line.deselected = s.deselected.clone();
                        }
                        usable += 1;
                    }
                }
            }
            lines.push(line);
        }
        lines
    }
}

/// How a repository was configured: `detected` (no config), `substrate.toml` (its
/// own) or `config=FILE` (the list's).
fn config_kind(entry: &Entry, path: &Path) -> &'static str {
    match (&entry.config, path.join("substrate.toml").is_file()) {
        (Some(_), _) => "config=",
        (None, true) => "substrate.toml",
        (None, false) => "detected",
    }
}

/// What became of one listed repository.
#[derive(Debug, Clone, Serialize)]
pub(super) struct RepoLine {
    pub(super) line: usize,
    /// The line as written.
    pub(super) entry: String,
    /// Where it was read from (absent when the fetch failed).
    pub(super) folder: Option<PathBuf>,
    /// `detected`, `substrate.toml` or `config=`.
    pub(super) config: &'static str,
    /// Its tests pass at HEAD (after deselection) and it gave candidates.
    pub(super) onboarded: bool,
    /// The substrate's name (unknown in a shard's report).
    pub(super) substrate: Option<String>,
    /// Tasks it contributed (unknown in a shard's report).
    pub(super) tasks: Option<usize>,
    /// Tests deselected at HEAD (failing or flaky there).
    pub(super) deselected: Vec<String>,
    /// Why it was skipped, in one line.
    pub(super) reason: Option<String>,
}

/// The per-repository part of a run's report.
pub(super) struct RepoReport {
    file: PathBuf,
    lines: Vec<RepoLine>,
}

/// Prints a run's report: `json` (with a `repos` key when the run had a list), or the
/// summary `print` writes followed by the per-repository lines.
pub(super) fn emit(
    as_json: bool,
    mut json: serde_json::Value,
    print: impl FnOnce(),
    repos: Option<RepoReport>,
) -> Result<ExitCode> {
    if as_json {
        if let Some(repos) = &repos {
            json["repos"] = serde_json::to_value(&repos.lines)?;
        }
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        print();
        if let Some(repos) = &repos {
            print_lines(&repos.file, &repos.lines);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints the per-repository block of the report.
fn print_lines(file: &Path, lines: &[RepoLine]) {
    let onboarded = lines.iter().filter(|l| l.onboarded).count();
    println!();
    println!("repositories of {}: {onboarded} of {} onboarded", file.display(), lines.len());
    for l in lines {
        let what = match (&l.reason, l.tasks) {
            (Some(reason), _) => format!("skipped: {reason}"),
            (None, Some(tasks)) => format!("{tasks} tasks ({})", l.config),
            (None, None) => format!("onboarded ({})", l.config),
        };
        let deselected = match l.deselected.len() {
            0 => String::new(),
            n => format!(", {n} tests deselected at HEAD"),
        };
        let name = l.substrate.as_deref().map(|n| format!(" [{n}]")).unwrap_or_default();
        println!("  line {:<4} {}{name}: {what}{deselected}", l.line, l.entry);
    }
}

/// `reason` on one line, at most 300 characters.
fn one_line(reason: &str) -> String {
    let joined = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    match joined.char_indices().nth(300) {
        Some((at, _)) => format!("{}...", &joined[..at]),
        None => joined,
    }
}
