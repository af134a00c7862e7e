//! `mergeforge gen-tasks`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use clap::Args;

use super::agent_rung::{record, AgentRungArgs};
use super::gen_summary::{print_summary, report_json};
use super::repos;
use super::shard_report::{print_shard_summary, shard_json};
use crate::difficulty::quota::Quotas;
use crate::difficulty::Scale;
use crate::forge::{Family, Group};
use crate::pipeline::shard::ShardSpec;
use crate::pipeline::{self, GenOptions, HistoryPython};
use crate::pytest::select::SelectionMode;
use crate::resolve::mergiraf;
use crate::substrate::repos::RepoList;
use crate::substrate::SubstrateSpec;

/// Generate a dataset version of test-verified merge-conflict tasks.
///
/// Each substrate's tests are run once at HEAD (a substrate whose tests fail is skipped
/// with the failing test names). Families then propose candidates (from the changes a
/// developer means at HEAD, from AST mutations, or from the project's history); each
/// candidate is merged with git2 and kept only if the conflicted tree fails its tests,
/// the gold merge passes, and ours/theirs fail or pass as the family requires. Kept
/// tasks are levelled by the first rung of the difficulty ladder that solves them (the
/// rungs are listed at the end of this help) and written to OUT/DATASET/VERSION with a
/// manifest written last. Writing a version that already
/// exists succeeds only if the new bytes are identical (the run reproduced it).
///
/// By default each (substrate, family) keeps its first --per-cell tasks. With --quota,
/// candidates of every cell are tried in turn until each quota is met or candidates run
/// out (the shortfall is reported). Either way a task whose conflict hunks equal a kept
/// one's after normalising whitespace and identifiers is dropped as near-duplicate.
///
/// The mergiraf rung runs mergiraf (a separate GPL-3.0 program) as a process: the
/// binary in $MERGEFORGE_MERGIRAF, else on PATH, else the pinned release that gen-tasks
/// installs on first use with `cargo install` into ~/.cache/mergeforge/tools (a few
/// minutes, once per machine). --no-mergiraf leaves it out; the manifest and the summary
/// then say the ladder is incomplete.
///
/// Test outcomes are cached under OUT/.mergeforge-cache (see --cache); the
/// Python venv with pytest is built once under ~/.cache/mergeforge (or
/// $MERGEFORGE_CACHE). A killed run can be started again with the same command: it
/// reuses the cached outcomes and writes byte-identical output.
///
/// With --history N (or `history = N` in substrate.toml), a git substrate's last N
/// commits are read too: merge commits whose parents conflict again (merge-replay: gold
/// is the maintainer's merge) and commits that change code with their tests
/// (commit-replay: the commit against a refactor of its parent). Real authors and
/// messages are kept; commits skipped before any test runs are counted by reason.
///
/// With --shard K/N, only shard K of N is generated, for `mergeforge merge-shards`.
///
/// With --repos FILE, the substrates are a list's repositories, one a line (`#` starts a
/// comment; paths are relative to the list's folder):
///
///   ../checkouts/inflection            a checkout, an unpacked sdist or a bare git directory
///   dist/six-1.16.0.tar.gz             an sdist archive (.tar.gz, .tgz, .zip), unpacked
///   file:///srv/git/idna.git@v3.7      a git URL at a revision (URL@REV, or URL rev=REV)
///   pypi:humanize==4.9.0               a release's sdist, downloaded with `python3 -m pip`
///   ../calc config=calc.toml           any entry with its own substrate.toml
///
/// URLs and sdists are fetched once into CACHE/repos/ (a rerun reuses them; remove a
/// folder there to fetch it again). A repository without a config is onboarded by
/// detection; one that fails to fetch or onboard (no tests, a suite over
/// --max-suite-cpu-seconds or failing everywhere) is skipped with its reason, and the
/// report has a line per repository. Task ids name their repository.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct GenTasksArgs {
    /// A substrate: a folder or a git repository (read at HEAD). Without substrate.toml
    /// its configuration is detected (`mergeforge onboard PATH` shows it); a config sets
    /// only the keys it names. Repeatable. Default: every folder under substrates/.
    #[arg(long = "substrate", value_name = "PATH")]
    pub(crate) substrates: Vec<PathBuf>,

    /// A repository list, one repository a line (the format is above), instead of
    /// --substrate and --substrate-config.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["substrates", "substrate_configs"])]
    pub(crate) repos: Option<PathBuf>,

    /// A substrate.toml to use: with a `path` key it names its own repository; without
    /// one it applies to the --substrate given in the same position. Repeatable.
    #[arg(long = "substrate-config", value_name = "FILE")]
    pub(crate) substrate_configs: Vec<PathBuf>,

    /// Test command for substrates without a config (instead of the detected one), e.g.
    /// "python -m pytest -q tests".
    #[arg(long, value_name = "CMD")]
    pub(crate) test_cmd: Option<String>,

    /// Output root; the version is written to OUT/DATASET/VERSION.
    #[arg(long, value_name = "DIR", default_value = "generated")]
    pub(crate) out: PathBuf,

    /// Test-outcome cache. Default: OUT/.mergeforge-cache. A run reuses the recorded
    /// outcome (including its duration) of any tree it has tested before, which is what
    /// makes re-runs byte-identical.
    #[arg(long, value_name = "DIR")]
    pub(crate) cache: Option<PathBuf>,

    /// Dataset name. Default: mergeforge-embedded for the embedded substrates, else mergeforge.
    #[arg(long, value_name = "NAME")]
    pub(crate) dataset: Option<String>,

    /// Dataset version (semver, e.g. 1.0.0).
    #[arg(long = "version", value_name = "SEMVER", default_value = "1.0.0")]
    pub(crate) dataset_version: String,

    /// Seed for the order candidates are tried in (and which side gets which change).
    #[arg(long, default_value_t = 0)]
    pub(crate) seed: u64,

    /// Keep at most this many tasks in total (the first ones in generation order).
    #[arg(long, value_name = "N")]
    pub(crate) max_tasks: Option<usize>,

    /// Families to use, comma-separated (catalogue names). Default: every family but
    /// signature-callsite (its gold can need values no code holds) and history's (with
    /// --history: merge-replay, commit-replay), repair families (easy tasks) at most a fifth
    /// of each substrate's tasks, semantic or mixed a quarter; another list lifts the caps.
    #[arg(long, value_delimiter = ',', value_name = "LIST", value_parser = super::values::CatalogueValue::<Family>::new("family"))]
    pub(crate) families: Vec<Family>,

    /// small (one or two intents a side), medium (three) or large (six, across at least
    /// four files, each change reaching the other branch's new code): medium and large
    /// tasks are dealt by feature-refactor and feature-contract (then the default).
    #[arg(long, value_name = "SCALE", default_value = "small")]
    pub(crate) scale: Scale,

    /// Tasks kept per (substrate, family). Ignored with --quota. Default: 4, or every
    /// task when every family is a history family.
    #[arg(long, value_name = "N")]
    pub(crate) per_cell: Option<usize>,

    /// Candidates tried per (substrate, family) at most. Default: 40, or every candidate
    /// with --quota or when every family is a history family.
    #[arg(long, value_name = "N")]
    pub(crate) candidates_per_cell: Option<usize>,

    /// Also make tasks from the last N commits of each git substrate's history (newest
    /// first): merge commits whose parents conflict again when re-merged (merge-replay:
    /// gold is the maintainer's merge) and commits that change code with its tests
    /// (commit-replay: the commit against a refactor of its parent). Overrides
    /// `history = N` in substrate.toml. Commits skipped before any test runs are
    /// counted by reason in the report.
    #[arg(long, value_name = "N")]
    pub(crate) history: Option<usize>,

    /// Which interpreter a history commit's tests run on. `era`: the commit's own, the
    /// Python its metadata lists (classifiers, tox, CI) among the releases out at its
    /// date, else the one its date points to, chosen among those installed (pyenv's
    /// included; the nearest when it is not), with its declared dependencies and pytest
    /// as of its date (resolved with uv); commits for Python 2 only are skipped. A
    /// substrate.toml that sets `python` keeps it for every commit. `head`: HEAD's venv
    /// for every commit.
    #[arg(long, value_enum, value_name = "WHICH", default_value = "era")]
    pub(crate) history_python: HistoryPython,

    /// Level quotas instead of --per-cell: LEVEL=N or FAMILY:LEVEL=N, comma-separated,
    /// e.g. easy=100,medium=100,hard=100 or compose-edits:hard=10. A task is kept while
    /// every quota covering its (family, level) has room.
    #[arg(long, value_name = "LIST")]
    pub(crate) quota: Option<String>,

    /// Parallel workers (test runs at once). Output does not depend on it.
    #[arg(long, value_name = "N")]
    pub(crate) jobs: Option<usize>,

    /// Generate only shard K of N (0-based, e.g. 0/3) into OUT/DATASET/VERSION.shard-K-of-N,
    /// for `mergeforge merge-shards` to combine into the version an unsharded run
    /// writes. Candidates have one global order; shard K judges every position p with
    /// p % N == K. A shard cannot know when the others met the goal, so it judges all of
    /// its positions (up to --candidates-per-cell per cell; bound that with --quota).
    #[arg(long, value_name = "K/N")]
    pub(crate) shard: Option<String>,

    /// Print the run report as JSON on stdout instead of a table.
    #[arg(long)]
    pub(crate) json: bool,

    /// Which tests run on a tree. coverage: a traced full run of HEAD maps tests to the
    /// functions they run, gold trees run the full suite in a new process and other trees
    /// only the tests that reach their changes (the full suite when a change cannot be
    /// attributed), on warm pytest fork servers (MERGEFORGE_FORK_SERVER=off: new
    /// processes), with a time limit scaled from those tests' HEAD durations (at least
    /// 10 s and a sixth of the substrate's timeout). full: every tree runs the full suite
    /// in a new process. Both give the same tasks and verdicts, except for a mutation
    /// that makes selected tests slow (past the scaled limit) but not endless.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = SelectionMode::Coverage)]
    pub(crate) selection: SelectionMode,

    /// The CPU seconds a substrate's suite may take at HEAD when its test command was
    /// detected (no config, or a config without `test_command`): a slower suite is
    /// skipped with the reason. Also the detected per-run limit (`timeout_s`).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_MAX_SUITE_CPU_SECONDS)]
    pub(crate) max_suite_cpu_seconds: u64,

    /// Do not draw a progress bar.
    #[arg(long)]
    pub(crate) no_progress: bool,

    /// Level tasks without the mergiraf rung (as MERGEFORGE_MERGIRAF=off does), instead
    /// of running mergiraf from PATH or installing it into the cache. The manifest then
    /// records the ladder as incomplete: a task mergiraf would solve may be called hard.
    #[arg(long)]
    pub(crate) no_mergiraf: bool,

    #[command(flatten)]
    pub(crate) agent: AgentRungArgs,
}

/// `--test-cmd`'s argv, split by the shell's quoting rules (`python -m pytest -k "a or b"`
/// is five words), never on bare whitespace.
fn test_argv(command: &str) -> anyhow::Result<Vec<String>> {
    match shlex::split(command) {
        Some(argv) if !argv.is_empty() => Ok(argv),
        Some(_) => anyhow::bail!("--test-cmd is empty; give the command that runs the tests"),
        None => anyhow::bail!("--test-cmd `{command}` has an unclosed quote or a trailing backslash"),
    }
}

pub(crate) fn run(args: GenTasksArgs) -> Result<ExitCode> {
    let shard = args.shard.as_deref().map(ShardSpec::parse).transpose()?;
    let (options, fetched) = options_and_repos(&args)?;
    mergiraf::prepare(options.no_mergiraf, options.progress)?;
    if let Some(shard) = shard {
        let report = pipeline::shard::gen_shard(&options, shard)?;
        let repos = fetched.map(|f| f.report(&report.skipped_substrates, None));
        return repos::emit(args.json, shard_json(&report), || print_shard_summary(&report), repos);
    }
    let report = pipeline::gen_tasks(&options)?;
    let repos = fetched.map(|f| f.report(&report.stats.skipped_substrates, Some(&report.manifest.substrates)));
    repos::emit(args.json, report_json(&report), || print_summary(&report), repos)
}

/// Default for --max-suite-cpu-seconds.
const DEFAULT_MAX_SUITE_CPU_SECONDS: u64 = 120;
/// Default for --per-cell.
const DEFAULT_PER_CELL: usize = 4;
/// Default for --candidates-per-cell without --quota.
const DEFAULT_CANDIDATES_PER_CELL: usize = 40;

/// The library options for a parsed `gen-tasks` command line (a --repos list's
/// repositories fetched).
pub(super) fn options_from(args: &GenTasksArgs) -> Result<GenOptions> {
    Ok(options_and_repos(args)?.0)
}

/// The library options, and with --repos what became of each listed repository's fetch.
fn options_and_repos(args: &GenTasksArgs) -> Result<(GenOptions, Option<repos::Fetched>)> {
    // A bad list line stops the run before anything is fetched or built.
    let list = args.repos.as_deref().map(RepoList::read).transpose()?;
    if !is_semver(&args.dataset_version) {
        bail!("--version {}: not a semantic version; use MAJOR.MINOR.PATCH like 1.0.0", args.dataset_version);
    }
    if args.per_cell == Some(0) || args.candidates_per_cell == Some(0) || args.history == Some(0) {
        bail!("--per-cell, --candidates-per-cell and --history must be at least 1");
    }
    let quotas = args.quota.as_deref().map(Quotas::parse).transpose().context("--quota")?;
    let families = if args.families.is_empty() && args.history.is_some() {
        Family::ALL.into_iter().filter(|f| f.group() == Group::History).collect()
    } else if args.families.is_empty() {
        Family::default_mix().into_iter().filter(|f| args.scale == Scale::Small || f.deals_branches()).collect()
    } else {
        let mut families = Vec::new();
        for family in &args.families {
            if !families.contains(family) {
                families.push(*family);
            }
        }
        families
    };
    if let Some(small) = families.iter().find(|f| args.scale != Scale::Small && !f.deals_branches()) {
        let dealing: Vec<&str> = Family::ALL.iter().filter(|f| f.deals_branches()).map(|f| f.name()).collect();
        let scale = args.scale;
        bail!("--scale {scale}: family {small} makes small tasks only; use --families {}", dealing.join(","));
    }
    // Real history is taken whole: every commit that makes a task is kept.
    let only_history = families.iter().all(|f| f.group() == Group::History);
    let per_cell = args.per_cell.unwrap_or(if only_history { usize::MAX } else { DEFAULT_PER_CELL });
    let candidates_per_cell = match (args.candidates_per_cell, &quotas) {
        (Some(n), _) => n,
        (None, Some(_)) => usize::MAX,
        (None, None) if only_history => usize::MAX,
        (None, None) => DEFAULT_CANDIDATES_PER_CELL,
    };
    let test_command = args.test_cmd.as_deref().map(test_argv).transpose()?;
    let embedded = args.substrates.is_empty() && args.substrate_configs.is_empty() && list.is_none();
    let dataset =
        args.dataset
            .clone()
            .unwrap_or_else(|| if embedded { "mergeforge-embedded".into() } else { "mergeforge".into() });
    if dataset.is_empty() || dataset.contains(['/', '\\']) || dataset.starts_with('.') {
        bail!("--dataset {dataset:?}: use a plain folder name");
    }
    let mut command = vec!["mergeforge".to_string(), "gen-tasks".to_string()];
    for path in &args.substrates {
        command.extend(["--substrate".to_string(), path.display().to_string()]);
    }
    for path in &args.substrate_configs {
        command.extend(["--substrate-config".to_string(), path.display().to_string()]);
    }
    if let Some(file) = &args.repos {
        command.extend(["--repos".to_string(), file.display().to_string()]);
    }
    if let Some(cmd) = &args.test_cmd {
        command.extend(["--test-cmd".to_string(), cmd.clone()]);
    }
    command.extend(["--dataset".into(), dataset.clone(), "--version".into(), args.dataset_version.clone()]);
    command.extend(["--seed".into(), args.seed.to_string()]);
    if args.scale != Scale::Small {
        command.extend(["--scale".into(), args.scale.name().to_string()]);
    }
    if families != Family::default_mix() {
        let names: Vec<&str> = families.iter().map(|f| f.name()).collect();
        command.extend(["--families".into(), names.join(",")]);
    }
    match &quotas {
        Some(quotas) => command.extend(["--quota".into(), quotas.to_string()]),
        None if per_cell != usize::MAX => command.extend(["--per-cell".into(), per_cell.to_string()]),
        None => {}
    }
    if let Some(depth) = args.history {
        command.extend(["--history".into(), depth.to_string()]);
    }
    if args.history_python != HistoryPython::default() {
        command.extend(["--history-python".into(), "head".into()]);
    }
    if candidates_per_cell != usize::MAX {
        command.extend(["--candidates-per-cell".into(), candidates_per_cell.to_string()]);
    }
    if let Some(max) = args.max_tasks {
        command.extend(["--max-tasks".into(), max.to_string()]);
    }
    if args.max_suite_cpu_seconds != DEFAULT_MAX_SUITE_CPU_SECONDS {
        command.extend(["--max-suite-cpu-seconds".into(), args.max_suite_cpu_seconds.to_string()]);
    }
    if args.selection != SelectionMode::default() {
        command.extend(["--selection".into(), args.selection.name().to_string()]);
    }
    let no_mergiraf = args.no_mergiraf || mergiraf::env_choice() == mergiraf::EnvChoice::Off;
    if no_mergiraf {
        command.push("--no-mergiraf".into());
    }
    let agent_rung = args.agent.options()?;
    if let Some(rung) = &agent_rung {
        command.extend(record(rung));
    }
    let jobs = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2));
    let cache_dir = args.cache.clone().unwrap_or_else(|| args.out.join(".mergeforge-cache"));
    let fetched = list.map(|list| repos::fetch_all(list, &cache_dir));
    let substrates = match &fetched {
        Some(fetched) => fetched.specs(&test_command),
        None if embedded => pipeline::embedded_substrates()?,
        None => substrate_specs(args, &test_command)?,
    };
    let options = GenOptions {
        substrates,
        out: args.out.clone(),
        cache_dir,
        dataset,
        version: args.dataset_version.clone(),
        seed: args.seed,
        max_tasks: args.max_tasks,
        families,
        scale: args.scale,
        per_cell,
        candidates_per_cell,
        quotas,
        jobs,
        progress: !args.no_progress && !args.json,
        command,
        selection: args.selection,
        no_mergiraf,
        history: args.history,
        history_python: args.history_python,
        agent_rung,
        max_suite_cpu_seconds: args.max_suite_cpu_seconds,
    };
    Ok((options, fetched))
}

fn substrate_specs(args: &GenTasksArgs, test_command: &Option<Vec<String>>) -> Result<Vec<SubstrateSpec>> {
    let mut paths: Vec<Option<PathBuf>> = args.substrates.iter().cloned().map(Some).collect();
    let mut specs = Vec::new();
    let mut next_path = 0;
    for config in &args.substrate_configs {
        let parsed = crate::substrate::SubstrateConfig::read(config)?;
        if parsed.path.is_some() {
            specs.push(SubstrateSpec::from_config_file(config)?);
        } else {
            let Some(path) = paths.get_mut(next_path).and_then(Option::take) else {
                bail!("{}: no `path` key and no --substrate left to apply it to", config.display());
            };
            next_path += 1;
            specs.push(SubstrateSpec { path, config_file: Some(config.clone()), test_command: None });
        }
    }
    for path in paths.into_iter().flatten() {
        specs.push(SubstrateSpec { path, config_file: None, test_command: test_command.clone() });
    }
    Ok(specs)
}

fn is_semver(version: &str) -> bool {
    semver::Version::parse(version).is_ok()
}

#[cfg(test)]
mod tests {
    use super::test_argv;

    #[test]
    fn a_test_command_is_split_by_the_shells_rules() {
        let argv = test_argv(r#"python -m pytest -k "parse and not slow" 'tests/a b.py'"#).unwrap();
        assert_eq!(argv, ["python", "-m", "pytest", "-k", "parse and not slow", "tests/a b.py"]);
        let unclosed = test_argv("python -m pytest -k 'parse").unwrap_err().to_string();
        assert!(unclosed.contains("unclosed quote"), "{unclosed}");
        assert!(test_argv("  ").unwrap_err().to_string().contains("--test-cmd is empty"));
    }
}
