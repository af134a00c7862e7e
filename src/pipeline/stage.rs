//! Staging a run: every substrate prepared (loaded, its tests passing at HEAD, a runner
//! with its outcome cache and test selection, its modules parsed and mutations listed;
//! a failing substrate is skipped with a warning), what killed runs left swept away,
//! and every (substrate, family) cell's candidates forged in seeded order.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use rayon::prelude::*;

use super::agent_rung::AgentRung;
use super::grader_check::Checker;
use super::options::{GenOptions, HistoryPython};
use super::rig::{EraRigs, Rig};
use crate::bundle::manifest::{Ladder, SubstrateEntry};
use crate::forge::{self, Candidate, Family, ForgeInput, Group};
use crate::intent::Probe;
use crate::leftovers;
use crate::mutate::{self, Mutation};
use crate::pytest::select::SelectionMode;
use crate::pytest::testrun::{OutcomeCache, TestRunner};
use crate::python::PyModule;
use crate::substrate::detect::era::Era;
use crate::substrate::history::{self, HistoryCounts, HistoryScan};
use crate::substrate::{self, Substrate, SubstrateSpec};

/// A substrate ready for forging.
pub(super) struct Prepared {
    pub(super) substrate: Substrate,
    /// Shared with the checker, which asks it which trees are known to fail.
    pub(super) runner: Arc<TestRunner>,
    pub(super) modules: Vec<PyModule>,
    pub(super) mutations: Vec<Vec<Mutation>>,
    /// Plays kept candidates through the environment's episodes, with the substrate's
    /// venv ([`Checker::python`]).
    pub(super) checker: Checker,
    /// The history the history families read, when the run reads it (`history = N`).
    pub(super) history: Option<HistoryScan>,
    /// The runners and checkers of the history's eras, built on first need.
    pub(super) eras: EraRigs,
    /// The outcome cache and the cache folder the eras' runners and checkers use.
    pub(super) cache: OutcomeCache,
    pub(super) cache_dir: PathBuf,
}

impl Prepared {
    /// The era `candidate` is judged in: its commit's, when the history scan gave it one.
    pub(super) fn era_of(&self, candidate: &Candidate) -> Option<&Era> {
        let origin = candidate.origin.as_ref()?;
        let commit = git2::Oid::from_str(&origin.commit).ok()?;
        self.history.as_ref()?.eras.get(&commit)
    }

    /// The rig of `era`, built on first need.
    pub(super) fn era_rig(&self, era: &Era) -> Result<Arc<Rig>> {
        self.eras.rig(era, &self.substrate, &self.cache, &self.cache_dir)
    }
}

/// Substrates prepared and their candidates laid out in cells, ready to be judged.
pub(super) struct Staged {
    pub(super) prepared: Vec<Prepared>,
    pub(super) skipped: Vec<(String, String)>,
    pub(super) cells: Vec<Cell>,
    /// Intents' sites found at HEAD per kind, summed over substrates (empty when no
    /// family of the mix reads them).
    pub(super) sites: BTreeMap<&'static str, usize>,
    /// Time spent preparing substrates, scanning histories and forging candidates.
    pub(super) timings: StageTimings,
    /// The agent rung, when the run has one (`--agent-rung`).
    pub(super) agent_rung: Option<AgentRung>,
    /// A bare repository the candidates' commits are written to.
    scratch: tempfile::TempDir,
}

/// Wall time of the stages before judging, summed over substrates.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StageTimings {
    /// Loading, HEAD's test runs, the coverage map, parsing and mutations.
    pub(super) prepare: Duration,
    /// Walking and classifying the history (git only).
    pub(super) history: Duration,
    /// Finding intents' sites and building candidates.
    pub(super) forge: Duration,
}

impl Staged {
    pub(super) fn repo_path(&self) -> &Path {
        self.scratch.path()
    }

    /// The ladder the candidates are levelled with (every venv comes from the same base
    /// interpreter, so the first substrate's names the Python of all).
    pub(super) fn ladder(&self) -> Ladder {
        let mut ladder = crate::bundle::version::ladder(self.prepared.first().map(|p| p.checker.python()));
        ladder.agent = self.agent_rung.as_ref().map(AgentRung::entry);
        ladder
    }
}

/// The candidates of one (substrate, family), in seeded order.
pub(super) struct Cell {
    pub(super) substrate: usize,
    pub(super) family: Family,
    pub(super) candidates: Vec<Candidate>,
}

/// Prepares the substrates (a failing one is skipped with a warning) and forges every
/// (substrate, family) cell's candidates in seeded order.
pub(super) fn stage(options: &GenOptions) -> Result<Staged> {
    let cache = OutcomeCache::new(&options.cache_dir.join("outcomes"));
    sweep_leftovers(&cache, &options.cache_dir);
    let mut skipped = Vec::new();
    let mut prepared = Vec::new();
    let mut timings = StageTimings::default();
    for spec in &options.substrates {
        match prepare(spec, &cache, options, &mut timings) {
            Ok(p) => prepared.push(p),
            Err(err) => {
                let name = spec.path.display().to_string();
                log::warn!("substrate {name} skipped: {err:#}");
                skipped.push((name, format!("{err:#}")));
            }
        }
    }
    if prepared.is_empty() {
        bail!("no usable substrate: every substrate was skipped (see the warnings above)");
    }

    let scratch = tempfile::Builder::new().prefix(&format!("{FORGE_PREFIX}{}-", leftovers::owner_tag())).tempdir()?;
    git2::Repository::init_bare(scratch.path()).context("creating the scratch repository")?;

    // Intents' sites are found once per substrate (a probe runs tests to find some),
    // and only for a mix with a family that reads them.
    // Finding sites parses every module many times over: one substrate a worker, so a
    // list of repositories does not wait on one core.
    let forging = Instant::now();
    let tables = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs.max(1))
        .build()
        .context("starting the site finders")?
        .install(|| {
            prepared
                .par_iter()
                .map(|p| {
                    let probe: Option<&dyn Probe> = Some(p.runner.as_ref());
                    Family::site_table(&options.families, &p.substrate, &p.modules, p.runner.coverage(), probe)
                })
                .collect::<Vec<_>>()
        });
    let mut cells = Vec::new();
    let mut sites = BTreeMap::new();
    for (index, (p, table)) in prepared.iter().zip(&tables).enumerate() {
        let probe: Option<&dyn Probe> = Some(p.runner.as_ref());
        let coverage = p.runner.coverage();
        for (kind, count) in table.counts() {
            *sites.entry(kind.name()).or_default() += count;
        }
        let input = ForgeInput {
            substrate: &p.substrate,
            modules: &p.modules,
            mutations: &p.mutations,
            coverage,
            probe,
            site_table: table,
            history: p.history.as_ref(),
            seed: options.seed,
            scale: options.scale,
        };
        for family in &options.families {
            let candidates = forge::ordered_candidates(*family, &input, options.candidates_per_cell);
            cells.push(Cell { substrate: index, family: *family, candidates });
        }
    }
    timings.forge = forging.elapsed();
    let agent_rung = options.agent_rung.as_ref().map(|rung| AgentRung::new(rung, &options.cache_dir)).transpose()?;
    Ok(Staged { prepared, skipped, cells, sites, timings, agent_rung, scratch })
}

/// Prefix of a run's scratch repository in the system's temporary folder.
const FORGE_PREFIX: &str = "mergeforge-forge-";

/// Clears what killed runs on this host left: temporary outcome-cache and coverage-map
/// entries, scratch repositories, sandbox copies (see [`leftovers`]) and pids cgroups
/// with whatever still runs in them (fork servers included).
fn sweep_leftovers(cache: &OutcomeCache, cache_dir: &Path) {
    let temp = std::env::temp_dir();
    let removed = cache.sweep_leftovers()
        + leftovers::sweep(&cache_dir.join("coverage"), crate::pytest::testrun::CACHE_TEMP_PREFIX)
        + leftovers::sweep(&temp, FORGE_PREFIX)
        + leftovers::sweep(&temp, crate::sandbox::SANDBOX_PREFIX)
        + crate::sandbox::confine::sweep_dead_cgroups();
    if removed > 0 {
        log::info!("removed {removed} temporary files and folders left by killed runs");
    }
}

/// What the substrates' history scans found, summed.
pub(super) fn history_counts(prepared: &[Prepared]) -> HistoryCounts {
    let mut counts = HistoryCounts::default();
    for scan in prepared.iter().filter_map(|p| p.history.as_ref()) {
        counts += &scan.counts();
    }
    counts
}

/// The manifest's substrate entries, with `tasks[i]` tasks from substrate `i`.
pub(super) fn substrate_entries(prepared: &[Prepared], tasks: &[usize]) -> Vec<SubstrateEntry> {
    prepared
        .iter()
        .zip(tasks)
        .map(|(p, n)| {
            let (license, source) = p.substrate.provenance();
            SubstrateEntry {
                name: p.substrate.name.clone(),
                commit: p.substrate.commit.clone(),
                tree: p.substrate.tree_id.clone(),
                tasks: *n,
                license,
                source,
                deselected: p.substrate.deselected.clone(),
            }
        })
        .collect()
}

fn prepare(
    spec: &SubstrateSpec,
    cache: &OutcomeCache,
    options: &GenOptions,
    timings: &mut StageTimings,
) -> Result<Prepared> {
    let started = Instant::now();
    let mut substrate = substrate::load(spec)?;
    let python = substrate.config.python_env()?;
    let budget = Duration::from_secs(options.max_suite_cpu_seconds);
    let runner = super::head::passing_runner(&mut substrate, &python, cache, budget)?;
    let runner = Arc::new(with_selection(runner, &substrate, options));
    let (modules, mutations) = mutable_modules(&substrate)?;
    let checker = Checker::new(python, &options.cache_dir, Some(runner.clone()));
    timings.prepare += started.elapsed();
    let scanning = Instant::now();
    let history = read_history(&substrate, options)?;
    timings.history += scanning.elapsed();
    Ok(Prepared {
        substrate,
        runner,
        modules,
        mutations,
        checker,
        history,
        eras: EraRigs::default(),
        cache: cache.clone(),
        cache_dir: options.cache_dir.clone(),
    })
}

/// The substrate's history, scanned when the run has a history family and a depth
/// (`--history N`, else `history = N` in substrate.toml).
fn read_history(substrate: &Substrate, options: &GenOptions) -> Result<Option<HistoryScan>> {
    let depth = options.history.or(substrate.config.history).filter(|n| *n > 0);
    let wanted = options.families.iter().any(|f| f.group() == Group::History);
    let (Some(depth), true) = (depth, wanted) else { return Ok(None) };
    if substrate.commit.is_none() {
        bail!("history = {depth} needs a git repository, and {} is a plain folder", substrate.origin.display());
    }
    // A substrate.toml that names an interpreter keeps it for every commit.
    let eras = options.history_python == HistoryPython::Era && !substrate.given.contains("python");
    let has = |path: &str| {
        let path = path.trim_end_matches('/');
        substrate.files.contains_key(path) || substrate.files.keys().any(|p| p.starts_with(&format!("{path}/")))
    };
    let scan =
        history::scan(&substrate.origin, depth, &substrate.config, eras.then_some(&has as &dyn Fn(&str) -> bool))
            .with_context(|| format!("reading the last {depth} commits of {}", substrate.origin.display()))?;
    Ok(Some(scan))
}

/// The substrate's mutable sources, parsed (a file that does not parse is skipped with a
/// warning), and every mutation of each, in the same order.
pub(crate) fn mutable_modules(substrate: &Substrate) -> Result<(Vec<PyModule>, Vec<Vec<Mutation>>)> {
    let mut modules = Vec::new();
    for source in substrate.mutable_sources() {
        match PyModule::parse(&source.path, &source.text) {
            Ok(module) => modules.push(module),
            Err(err) => log::warn!("{}: {err}; file skipped", substrate.name),
        }
    }
    if modules.is_empty() {
        bail!("no Python source to mutate under source_dirs {:?}", substrate.config.source_dirs);
    }
    let mutations = modules.iter().map(mutate::all_mutations).collect();
    Ok((modules, mutations))
}

/// The runner selecting tests by a coverage map of HEAD (`--selection coverage`); if the
/// map cannot be made, a warning says so and the substrate's trees run in full.
fn with_selection(runner: TestRunner, substrate: &Substrate, options: &GenOptions) -> TestRunner {
    if options.selection != SelectionMode::Coverage {
        return runner;
    }
    match runner.coverage_map(&substrate.files, &options.cache_dir.join("coverage")) {
        Ok(map) => {
            if !map.tests.is_empty() && map.tests.values().all(Vec::is_empty) {
                log::warn!(
                    "substrate {}: the coverage trace saw no test run a function of the code, so intents that need it find no site (does the test command measure coverage? add `--no-cov` for pytest-cov's `--cov`)",
                    substrate.name
                );
            }
            runner.with_selection(substrate.files.clone(), map)
        }
        Err(err) => {
            log::warn!("substrate {}: {err:#}", substrate.name);
            runner
        }
    }
}
