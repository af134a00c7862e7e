//! `gen-tasks`: drives the stages from substrates to a written dataset version.
//!
//! Work is split into cells, one per (substrate, family), each holding its candidates
//! in seeded order. The cells' candidates are laid out in one global order and judged
//! in parallel (workers judge ahead of the decisions), but kept strictly in that order,
//! so the result never depends on `--jobs` or on timing:
//!
//! - by default the order is cell after cell, and each cell keeps its first `per_cell`
//!   tasks;
//! - with quotas ([`Quotas`]) the order takes one candidate of each cell in turn, and a
//!   task is kept while a quota wants its (family, level), until every quota is met or
//!   the candidates run out (the shortfall is reported).
//!
//! A task whose conflict hunks equal a kept task's after normalising whitespace and
//! identifiers ([`near_duplicate`]) is dropped as `near-duplicate`, as is one listed in
//! the [`Exclusions`] a caller passes (the curriculum passes its dataset's tasks).
//!
//! [`shard`] splits the global order across machines (`gen-tasks --shard K/N`) and
//! merges the shards' verdicts with the same [`Acceptance`] code (`merge-shards`).

pub mod shard;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use crate::bundle::dataset::{VersionFiles, WriteResult};
use crate::bundle::manifest::{Manifest, SubstrateEntry};
use crate::bundle::record::{self, TaskFiles, TaskInput};
use crate::bundle::task_id;
pub use crate::bundle::version::VersionMeta;
use crate::bundle::version::{self, write_generated};
use crate::difficulty::near_duplicate;
use crate::difficulty::quota::{QuotaState, Quotas, Shortfall};
use crate::difficulty::{self, Difficulty, Features, Level};
use crate::forge::commits::{write_task_commits, TaskCommits};
use crate::forge::{self, Candidate, Family, ForgeInput};
use crate::leftovers;
use crate::merge::{self, MergeResult};
use crate::mutate::{self, Mutation, PyModule};
use crate::sandbox::python::ensure_venv;
use crate::sandbox::testrun::{OutcomeCache, TestRunner};
use crate::sandbox::user_cache_dir;
use crate::select::SelectionMode;
use crate::snapshot::Snapshot;
use crate::substrate::{self, Substrate, SubstrateSpec};
use crate::validate::{self, Rejection, Validation};

/// Everything that decides what `gen-tasks` produces, plus how it runs.
#[derive(Debug, Clone)]
pub struct GenOptions {
    /// Substrates to use, in order.
    pub substrates: Vec<SubstrateSpec>,
    pub out: PathBuf,
    /// Where test outcomes are cached (default `OUT/.mergeforge-cache`).
    pub cache_dir: PathBuf,
    pub dataset: String,
    pub version: String,
    pub seed: u64,
    pub max_tasks: Option<usize>,
    pub families: Vec<Family>,
    /// Tasks kept per (substrate, family) (without quotas).
    pub per_cell: usize,
    /// Candidates tried per (substrate, family) at most.
    pub candidates_per_cell: usize,
    /// Level quotas; `None` keeps `per_cell` tasks per cell instead.
    pub quotas: Option<Quotas>,
    pub jobs: usize,
    pub progress: bool,
    /// The canonical command line recorded in the manifest.
    pub command: Vec<String>,
    /// Which tests run on a tree: selected by a coverage map of HEAD, or all of them.
    pub selection: SelectionMode,
}

impl GenOptions {
    /// What the manifest records about the run.
    pub(crate) fn meta(&self) -> VersionMeta {
        VersionMeta {
            dataset: self.dataset.clone(),
            version: self.version.clone(),
            command: self.command.clone(),
            seed: self.seed,
        }
    }

    /// What decides which kept candidates become tasks.
    fn goal(&self) -> Goal<'_> {
        match &self.quotas {
            Some(quotas) => Goal::Quotas(quotas),
            None => Goal::PerCell(self.per_cell),
        }
    }
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct GenReport {
    pub version_dir: PathBuf,
    pub write: WriteResult,
    pub manifest: Manifest,
    pub candidates_tried: usize,
    pub kept: usize,
    pub rejected: BTreeMap<String, usize>,
    /// Quotas that were not met (empty without quotas).
    pub shortfall: Vec<Shortfall>,
    pub skipped_substrates: Vec<(String, String)>,
    pub elapsed: Duration,
    /// Sandboxed test runs actually executed (cache hits excluded), over all substrates.
    pub test_runs: usize,
    /// Summed wall time of those runs.
    pub test_time: Duration,
    /// Test cases those runs executed (pytest's summary counts).
    pub test_cases: usize,
    /// Of `test_runs`, those pytest fork servers ran (see `sandbox::forkserver`).
    pub served_runs: usize,
    /// Fork servers started.
    pub servers_started: usize,
}

/// Tasks new ones must not repeat: by id, or by near-duplicate fingerprint.
#[derive(Debug, Clone, Default)]
pub struct Exclusions {
    pub ids: BTreeSet<String>,
    pub fingerprints: BTreeSet<String>,
}

impl Exclusions {
    /// Excludes `task` and its near-duplicates.
    pub fn add(&mut self, task: &TaskFiles) {
        self.ids.insert(task.task.id.clone());
        self.fingerprints.insert(task.fingerprint());
    }
}

/// What [`generate`] made.
#[derive(Debug, Clone)]
pub struct Generated {
    /// In generation order, `max_tasks` applied.
    pub tasks: Vec<TaskFiles>,
    /// Every usable substrate, in order (with task counts of `tasks`).
    pub substrates: Vec<SubstrateEntry>,
    pub candidates_tried: usize,
    pub kept: usize,
    pub rejected: BTreeMap<String, usize>,
    pub shortfall: Vec<Shortfall>,
    pub skipped_substrates: Vec<(String, String)>,
    /// Sandboxed test runs actually executed (cache hits excluded), over all substrates.
    pub test_runs: usize,
    /// Summed wall time of those runs.
    pub test_time: Duration,
    /// Test cases those runs executed (pytest's summary counts).
    pub test_cases: usize,
    /// Of `test_runs`, those pytest fork servers ran (see `sandbox::forkserver`).
    pub served_runs: usize,
    /// Fork servers started.
    pub servers_started: usize,
}

/// A substrate ready for forging.
struct Prepared {
    substrate: Substrate,
    runner: TestRunner,
    modules: Vec<PyModule>,
    mutations: Vec<Vec<Mutation>>,
}

/// A kept candidate, before it is bundled.
struct Draft {
    id: String,
    fingerprint: String,
    substrate: usize,
    candidate: Candidate,
    commits: TaskCommits,
    conflicted: Snapshot,
    conflicts: Vec<merge::ConflictedFile>,
    validation: Validation,
    difficulty: Difficulty,
    features: Features,
}

/// A judged candidate: kept (a task, not yet selected) or rejected with a reason.
pub(crate) enum Verdict<T> {
    Kept(T),
    /// The rejection's name ([`Rejection::name`]).
    Rejected(String),
}

impl<T> Verdict<T> {
    fn rejected(reason: Rejection) -> Self {
        Verdict::Rejected(reason.name().to_string())
    }
}

/// What selection needs to know of a kept candidate.
pub(crate) trait Keepable {
    fn id(&self) -> &str;
    /// The near-duplicate fingerprint of its conflict hunks.
    fn fingerprint(&self) -> &str;
    fn level(&self) -> Level;
}

impl Keepable for Box<Draft> {
    fn id(&self) -> &str {
        &self.id
    }
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
    fn level(&self) -> Level {
        self.difficulty.level
    }
}

/// The embedded substrates: every folder with a `substrate.toml` under `substrates/`
/// (next to the working directory, else next to this crate's sources), sorted by name.
pub fn embedded_substrates() -> Result<Vec<SubstrateSpec>> {
    let local = PathBuf::from("substrates");
    let root = if local.is_dir() { local } else { Path::new(env!("CARGO_MANIFEST_DIR")).join("substrates") };
    let mut specs = Vec::new();
    let entries = std::fs::read_dir(&root)
        .with_context(|| format!("{}: no embedded substrates; pass --substrate PATH", root.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path.join(substrate::config::CONFIG_FILE).is_file() {
            specs.push(SubstrateSpec { path, config_file: None, test_command: None });
        }
    }
    specs.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(specs)
}

/// Runs the whole pipeline and writes the dataset version.
pub fn gen_tasks(options: &GenOptions) -> Result<GenReport> {
    let started = Instant::now();
    let generated = generate(options, &Exclusions::default())?;
    ensure_tasks(generated.tasks.len(), generated.candidates_tried, &generated.rejected)?;
    let mut files = VersionFiles::new();
    let entries = version::add_tasks(&mut files, &generated.tasks)?;
    let meta = options.meta();
    let (write, version_dir, manifest) =
        write_generated(&options.out, &meta, generated.substrates.clone(), &files, entries)?;
    version::write_durations(&options.cache_dir, &meta, "", &generated.tasks.iter().collect::<Vec<_>>())?;
    Ok(GenReport {
        version_dir,
        write,
        manifest,
        candidates_tried: generated.candidates_tried,
        kept: generated.kept,
        rejected: generated.rejected,
        shortfall: generated.shortfall,
        skipped_substrates: generated.skipped_substrates,
        elapsed: started.elapsed(),
        test_runs: generated.test_runs,
        test_time: generated.test_time,
        test_cases: generated.test_cases,
        served_runs: generated.served_runs,
        servers_started: generated.servers_started,
    })
}

/// Refuses a run that kept no task, naming what the candidates were rejected for.
pub(crate) fn ensure_tasks(tasks: usize, tried: usize, rejected: &BTreeMap<String, usize>) -> Result<()> {
    if tasks > 0 {
        return Ok(());
    }
    let reasons: Vec<String> = rejected.iter().map(|(r, n)| format!("{r} {n}")).collect();
    bail!(
        "no candidate became a task ({} tried; rejected: {}); try more --candidates-per-cell, other --families or a substrate with stricter tests",
        tried,
        if reasons.is_empty() { "none".to_string() } else { reasons.join(", ") }
    );
}

/// Prepares the substrates, forges and judges candidates, and returns the kept tasks
/// (not written). Tasks in `exclude` (and their near-duplicates) are not made again.
pub fn generate(options: &GenOptions, exclude: &Exclusions) -> Result<Generated> {
    let staged = stage(options)?;
    let goal = options.goal();
    let engine = staged.engine(options.jobs);
    let total: usize = staged.cells.iter().map(|c| c.candidates.len()).sum();
    let bar = progress_bar(options.progress, total as u64);
    let selection = engine.select(goal, exclude, &bar)?;
    bar.finish_and_clear();

    let kept = selection.accepted.len();
    let mut drafts = selection.accepted;
    if let Some(max) = options.max_tasks {
        drafts.truncate(max);
    }
    let repo = git2::Repository::open_bare(staged.repo_path())?;
    let mut tasks = Vec::with_capacity(drafts.len());
    let mut per_substrate = vec![0usize; staged.prepared.len()];
    for draft in &drafts {
        tasks.push(make_task(&repo, &staged.prepared[draft.substrate].substrate, draft)?);
        per_substrate[draft.substrate] += 1;
    }
    Ok(Generated {
        tasks,
        substrates: substrate_entries(&staged.prepared, &per_substrate),
        candidates_tried: selection.tried,
        kept,
        rejected: selection.rejected,
        shortfall: selection.shortfall,
        skipped_substrates: staged.skipped,
        test_runs: staged.prepared.iter().map(|p| p.runner.test_runs()).sum(),
        test_time: staged.prepared.iter().map(|p| p.runner.test_time()).sum(),
        test_cases: staged.prepared.iter().map(|p| p.runner.test_cases()).sum(),
        served_runs: staged.prepared.iter().map(|p| p.runner.served_runs()).sum(),
        servers_started: staged.prepared.iter().map(|p| p.runner.servers_started()).sum(),
    })
}

/// Substrates prepared and their candidates laid out in cells, ready to be judged.
struct Staged {
    prepared: Vec<Prepared>,
    skipped: Vec<(String, String)>,
    cells: Vec<Cell>,
    /// A bare repository the candidates' commits are written to.
    scratch: tempfile::TempDir,
}

impl Staged {
    fn repo_path(&self) -> &Path {
        self.scratch.path()
    }

    fn engine(&self, jobs: usize) -> Engine<'_> {
        Engine { prepared: &self.prepared, cells: &self.cells, repo_path: self.repo_path(), jobs: jobs.max(1) }
    }
}

/// Prepares the substrates (a failing one is skipped with a warning) and forges every
/// (substrate, family) cell's candidates in seeded order.
fn stage(options: &GenOptions) -> Result<Staged> {
    let cache = OutcomeCache::new(&options.cache_dir.join("outcomes"));
    sweep_leftovers(&cache, &options.cache_dir);
    let mut skipped = Vec::new();
    let mut prepared = Vec::new();
    for spec in &options.substrates {
        match prepare(spec, &cache, options) {
            Ok(p) => prepared.push(p),
            Err(err) => {
                let name = spec.path.display().to_string();
                eprintln!("warning: substrate {name} skipped: {err:#}");
                skipped.push((name, format!("{err:#}")));
            }
        }
    }
    if prepared.is_empty() {
        bail!("no usable substrate: every substrate was skipped (see the warnings above)");
    }

    let scratch = tempfile::Builder::new().prefix(&format!("{FORGE_PREFIX}{}-", leftovers::owner_tag())).tempdir()?;
    git2::Repository::init_bare(scratch.path()).context("creating the scratch repository")?;

    let mut cells = Vec::new();
    for (index, p) in prepared.iter().enumerate() {
        let input =
            ForgeInput { substrate: &p.substrate, modules: &p.modules, mutations: &p.mutations, seed: options.seed };
        for family in &options.families {
            let candidates = forge::ordered_candidates(*family, &input, options.candidates_per_cell);
            cells.push(Cell { substrate: index, family: *family, candidates });
        }
    }
    Ok(Staged { prepared, skipped, cells, scratch })
}

/// Prefix of a run's scratch repository in the system's temporary folder.
const FORGE_PREFIX: &str = "mergeforge-forge-";

/// Clears what killed runs on this host left: temporary outcome-cache and coverage-map
/// entries, scratch repositories, sandbox copies (see [`leftovers`]) and pids cgroups
/// with whatever still runs in them (fork servers included).
fn sweep_leftovers(cache: &OutcomeCache, cache_dir: &Path) {
    let temp = std::env::temp_dir();
    let removed = cache.sweep_leftovers()
        + leftovers::sweep(&cache_dir.join("coverage"), crate::sandbox::testrun::CACHE_TEMP_PREFIX)
        + leftovers::sweep(&temp, FORGE_PREFIX)
        + leftovers::sweep(&temp, crate::sandbox::SANDBOX_PREFIX)
        + crate::sandbox::confine::sweep_dead_cgroups();
    if removed > 0 {
        eprintln!("note: removed {removed} temporary files and folders left by killed runs");
    }
}

/// The manifest's substrate entries, with `tasks[i]` tasks from substrate `i`.
fn substrate_entries(prepared: &[Prepared], tasks: &[usize]) -> Vec<SubstrateEntry> {
    prepared
        .iter()
        .zip(tasks)
        .map(|(p, n)| SubstrateEntry {
            name: p.substrate.name.clone(),
            commit: p.substrate.commit.clone(),
            tree: p.substrate.tree_id.clone(),
            tasks: *n,
        })
        .collect()
}

/// Bundles a kept candidate and makes its records.
fn make_task(repo: &git2::Repository, substrate: &Substrate, draft: &Draft) -> Result<TaskFiles> {
    TaskFiles::make(
        repo,
        &TaskInput {
            id: &draft.id,
            substrate,
            candidate: &draft.candidate,
            commits: &draft.commits,
            conflicted: &draft.conflicted,
            conflicts: &draft.conflicts,
            validation: &draft.validation,
            difficulty: &draft.difficulty,
            features: &draft.features,
        },
    )
}

fn prepare(spec: &SubstrateSpec, cache: &OutcomeCache, options: &GenOptions) -> Result<Prepared> {
    let substrate = substrate::load(spec)?;
    let python = ensure_venv(&user_cache_dir(), &substrate.config.python_deps)?;
    let runner = TestRunner::new(
        &substrate.config.test_command,
        &substrate.config.env,
        Duration::from_secs(substrate.config.timeout_s),
        &python,
        Some(cache.clone()),
    );
    let head = runner.run_full(&substrate.files)?;
    if !head.passed {
        let shown: Vec<&str> = head.failed_tests.iter().take(5).map(String::as_str).collect();
        bail!(
            "tests fail at HEAD ({}{}); fix them or the test command in substrate.toml",
            shown.join(", "),
            if head.failed_tests.len() > 5 { ", ..." } else { "" }
        );
    }
    let runner = with_selection(runner, &substrate, options);
    let (modules, mutations) = mutable_modules(&substrate)?;
    Ok(Prepared { substrate, runner, modules, mutations })
}

/// The substrate's mutable sources, parsed (a file that does not parse is skipped with a
/// warning), and every mutation of each, in the same order.
pub(crate) fn mutable_modules(substrate: &Substrate) -> Result<(Vec<PyModule>, Vec<Vec<Mutation>>)> {
    let mut modules = Vec::new();
    for source in substrate.mutable_sources() {
        match PyModule::parse(&source.path, &source.text) {
            Ok(module) => modules.push(module),
            Err(err) => eprintln!("warning: {}: {err}; file skipped", substrate.name),
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
        Ok(map) => runner.with_selection(substrate.files.clone(), map),
        Err(err) => {
            eprintln!("warning: substrate {}: {err:#}", substrate.name);
            runner
        }
    }
}

fn progress_bar(visible: bool, total: u64) -> ProgressBar {
    if !visible {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    let style = ProgressStyle::with_template("{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} candidates · {msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The candidates of one (substrate, family), in seeded order.
struct Cell {
    substrate: usize,
    family: Family,
    candidates: Vec<Candidate>,
}

/// What decides which kept candidates become tasks.
#[derive(Clone, Copy)]
pub(crate) enum Goal<'a> {
    /// The first `n` tasks of each cell, cells in order.
    PerCell(usize),
    /// Tasks while a quota wants them, one candidate of each cell in turn.
    Quotas(&'a Quotas),
}

/// The global order of candidates for `goal`, as (cell, index in cell), given each
/// cell's number of candidates: cell after cell for [`Goal::PerCell`], one candidate of
/// each cell in turn for [`Goal::Quotas`]. Shards split this order; merging replays it.
pub(crate) fn global_order(cell_sizes: &[usize], goal: Goal) -> Vec<(usize, usize)> {
    match goal {
        Goal::PerCell(_) => cell_sizes.iter().enumerate().flat_map(|(c, n)| (0..*n).map(move |k| (c, k))).collect(),
        Goal::Quotas(_) => {
            let longest = cell_sizes.iter().copied().max().unwrap_or(0);
            (0..longest)
                .flat_map(|k| cell_sizes.iter().enumerate().filter(move |(_, n)| k < **n).map(move |(c, _)| (c, k)))
                .collect()
        }
    }
}

/// The outcome of selection.
pub(crate) struct Selection<T> {
    /// Kept tasks in global order (before `--max-tasks`).
    pub accepted: Vec<T>,
    pub tried: usize,
    pub rejected: BTreeMap<String, usize>,
    pub shortfall: Vec<Shortfall>,
}

/// The acceptance state, updated strictly in global order. The one place that decides
/// which verdicts become tasks: an unsharded run feeds it verdicts as workers deliver
/// them, `merge-shards` feeds it the verdicts the shards recorded.
pub(crate) struct Acceptance<'a, T> {
    goal: Goal<'a>,
    /// Each cell's family.
    families: Vec<Family>,
    per_cell: Vec<usize>,
    quota: QuotaState,
    ids: BTreeSet<String>,
    fingerprints: BTreeSet<String>,
    selection: Selection<T>,
}

impl<'a, T: Keepable> Acceptance<'a, T> {
    /// Nothing decided yet; cell `c` holds candidates of `families[c]`.
    pub(crate) fn new(goal: Goal<'a>, families: Vec<Family>, exclude: &Exclusions) -> Self {
        Acceptance {
            goal,
            per_cell: vec![0; families.len()],
            families,
            quota: QuotaState::default(),
            ids: exclude.ids.clone(),
            fingerprints: exclude.fingerprints.clone(),
            selection: Selection { accepted: Vec::new(), tried: 0, rejected: BTreeMap::new(), shortfall: Vec::new() },
        }
    }

    /// Whether the cell could still contribute a task.
    fn wants_cell(&self, cell: usize) -> bool {
        match self.goal {
            Goal::PerCell(n) => self.per_cell[cell] < n,
            Goal::Quotas(q) => q.wants_family(&self.quota, self.families[cell]),
        }
    }

    fn done(&self) -> bool {
        match self.goal {
            Goal::PerCell(_) => false,
            Goal::Quotas(q) => q.met(&self.quota),
        }
    }

    /// Decides `order[cursor..]` in turn while the verdicts are at hand (`take` gives a
    /// candidate's verdict, or `None` if it is not judged yet); candidates of cells that
    /// cannot contribute any more are passed over undecided. Returns true when the goal
    /// is met or the order is exhausted.
    pub(crate) fn advance(
        &mut self,
        order: &[(usize, usize)],
        cursor: &mut usize,
        mut take: impl FnMut(usize, usize) -> Option<Verdict<T>>,
    ) -> bool {
        while *cursor < order.len() && !self.done() {
            let (c, k) = order[*cursor];
            if self.wants_cell(c) {
                let Some(verdict) = take(c, k) else { return false };
                self.decide(c, verdict);
            }
            *cursor += 1;
        }
        true
    }

    fn decide(&mut self, cell: usize, verdict: Verdict<T>) {
        self.selection.tried += 1;
        let kept = match verdict {
            Verdict::Rejected(reason) => {
                *self.selection.rejected.entry(reason).or_default() += 1;
                return;
            }
            Verdict::Kept(kept) => kept,
        };
        if self.ids.contains(kept.id()) || self.fingerprints.contains(kept.fingerprint()) {
            *self.selection.rejected.entry(Rejection::NearDuplicate.name().to_string()).or_default() += 1;
            return;
        }
        let (family, level) = (self.families[cell], kept.level());
        let wanted = match self.goal {
            Goal::PerCell(n) => self.per_cell[cell] < n,
            Goal::Quotas(q) => q.wants(&self.quota, family, level),
        };
        if !wanted {
            return;
        }
        if let Goal::Quotas(q) = self.goal {
            q.keep(&mut self.quota, family, level);
        }
        self.per_cell[cell] += 1;
        self.ids.insert(kept.id().to_string());
        self.fingerprints.insert(kept.fingerprint().to_string());
        self.selection.accepted.push(kept);
    }

    /// The selection, with the quotas' shortfall.
    pub(crate) fn finish(mut self) -> Selection<T> {
        if let Goal::Quotas(q) = self.goal {
            self.selection.shortfall = q.shortfall(&self.quota);
        }
        self.selection
    }
}

/// Judges candidates on worker threads and keeps them in global order.
struct Engine<'a> {
    prepared: &'a [Prepared],
    cells: &'a [Cell],
    repo_path: &'a Path,
    /// Workers judging candidates at once (the result does not depend on it).
    jobs: usize,
}

impl Engine<'_> {
    /// The global order: (cell, index in cell).
    fn order(&self, goal: Goal) -> Vec<(usize, usize)> {
        let sizes: Vec<usize> = self.cells.iter().map(|c| c.candidates.len()).collect();
        global_order(&sizes, goal)
    }

    fn families(&self) -> Vec<Family> {
        self.cells.iter().map(|c| c.family).collect()
    }

    /// Judges candidate `k` of cell `c`.
    fn judge(&self, c: usize, k: usize) -> Result<Verdict<Box<Draft>>> {
        let cell = &self.cells[c];
        judge(&self.prepared[cell.substrate], cell.substrate, &cell.candidates[k], self.repo_path)
    }

    fn select(&self, goal: Goal, exclude: &Exclusions, bar: &ProgressBar) -> Result<Selection<Box<Draft>>> {
        let order = self.order(goal);
        let mut state = Acceptance::new(goal, self.families(), exclude);
        let mut work = Work {
            verdicts: self.cells.iter().map(|c| (0..c.candidates.len()).map(|_| None).collect()).collect(),
            dispatched: vec![0; self.cells.len()],
            in_flight: vec![0; self.cells.len()],
        };
        let (job_tx, job_rx) = mpsc::channel::<(usize, usize)>();
        let (done_tx, done_rx) = mpsc::channel::<((usize, usize), Result<Verdict<Box<Draft>>>)>();
        let job_rx = Mutex::new(job_rx);
        let stop = AtomicBool::new(false);
        let outcome = std::thread::scope(|scope| {
            for _ in 0..self.jobs {
                let (job_rx, done_tx, stop) = (&job_rx, done_tx.clone(), &stop);
                scope.spawn(move || loop {
                    let next = job_rx.lock().map_err(|_| ()).and_then(|rx| rx.recv().map_err(|_| ()));
                    let Ok((c, k)) = next else { break };
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let verdict = self.judge(c, k);
                    bar.inc(1);
                    if done_tx.send(((c, k), verdict)).is_err() {
                        break;
                    }
                });
            }
            // Only the workers hold senders now: if they all stop, `recv` says so.
            drop(done_tx);
            let result = self.drive(&order, &mut state, &mut work, &job_tx, &done_rx, bar);
            stop.store(true, Ordering::Relaxed);
            drop(job_tx);
            result
        });
        outcome?;
        Ok(state.finish())
    }

    /// Keeps the workers fed and decides verdicts in global order as they arrive, until
    /// the goal is met or every candidate is decided.
    fn drive(
        &self,
        order: &[(usize, usize)],
        state: &mut Acceptance<Box<Draft>>,
        work: &mut Work,
        jobs: &mpsc::Sender<(usize, usize)>,
        done: &mpsc::Receiver<((usize, usize), Result<Verdict<Box<Draft>>>)>,
        bar: &ProgressBar,
    ) -> Result<()> {
        let mut cursor = 0;
        loop {
            if state.advance(order, &mut cursor, |c, k| work.verdicts[c][k].take()) {
                return Ok(());
            }
            for job in self.plan(order, cursor, state, work) {
                work.dispatched[job.0] += 1;
                work.in_flight[job.0] += 1;
                jobs.send(job).map_err(|_| anyhow::anyhow!("the judging workers stopped"))?;
            }
            if work.in_flight.iter().all(|n| *n == 0) {
                bail!("internal error: candidate {} is undecided and nothing is being judged", cursor);
            }
            let ((c, k), verdict) = done.recv().context("the judging workers stopped")?;
            work.in_flight[c] -= 1;
            work.verdicts[c][k] = Some(verdict?);
            bar.set_message(format!("{} kept", state.selection.accepted.len()));
        }
    }

    /// The next candidates to judge, so that about twice as many as there are workers are
    /// in flight: from the cursor on, each wanted cell's next unjudged ones; without
    /// quotas no more per cell than it may still need, with quotas no more in all than
    /// the tasks still wanted (judging further ahead would be wasted work).
    fn plan(
        &self,
        order: &[(usize, usize)],
        cursor: usize,
        state: &Acceptance<Box<Draft>>,
        work: &Work,
    ) -> Vec<(usize, usize)> {
        let in_flight: usize = work.in_flight.iter().sum();
        let limit = match state.goal {
            Goal::PerCell(_) => 2 * self.jobs,
            Goal::Quotas(q) => q.outstanding(&state.quota).clamp(self.jobs, 2 * self.jobs),
        };
        let mut planned = vec![0usize; self.cells.len()];
        let mut out = Vec::new();
        for &(c, k) in &order[cursor..] {
            if in_flight + out.len() >= limit {
                break;
            }
            if k != work.dispatched[c] + planned[c] || !state.wants_cell(c) {
                continue;
            }
            if let Goal::PerCell(n) = state.goal {
                let pending = work.verdicts[c].iter().flatten().filter(|v| matches!(v, Verdict::Kept(_))).count();
                let need = n.saturating_sub(state.per_cell[c] + pending + work.in_flight[c]);
                if planned[c] >= need.max(usize::from(k == order[cursor].1 && c == order[cursor].0)) {
                    continue;
                }
            }
            out.push((c, k));
            planned[c] += 1;
        }
        out
    }
}

/// Candidates handed to the workers and their verdicts, per cell.
struct Work {
    verdicts: Vec<Vec<Option<Verdict<Box<Draft>>>>>,
    /// Candidates of each cell handed out so far (always a prefix of the cell).
    dispatched: Vec<usize>,
    in_flight: Vec<usize>,
}

fn judge(prepared: &Prepared, index: usize, candidate: &Candidate, repo_path: &Path) -> Result<Verdict<Box<Draft>>> {
    let repo = git2::Repository::open_bare(repo_path)?;
    let commits = write_task_commits(&repo, candidate)?;
    let (conflicted, conflicts) = match merge::merge(&repo, commits.ours, commits.theirs)? {
        MergeResult::Clean => return Ok(Verdict::rejected(Rejection::CleanMerge)),
        MergeResult::Unsupported(_) => return Ok(Verdict::rejected(Rejection::UnsupportedConflict)),
        MergeResult::Conflicted { tree, files } => (tree, files),
    };
    let paths: Vec<String> = conflicts.iter().map(|c| c.path.clone()).collect();
    let validation = match validate::validate(candidate, &conflicted, &paths, &prepared.runner)? {
        Ok(validation) => validation,
        Err(reason) => return Ok(Verdict::rejected(reason)),
    };
    let outside = record::edits_outside_conflicts(&conflicted, &candidate.gold, &paths);
    let mut operators: Vec<String> = candidate.mutations.iter().map(|m| m.operator.to_string()).collect();
    operators.sort();
    operators.dedup();
    let features = Features {
        hunks: conflicts.iter().map(|c| c.hunks).sum(),
        conflicted_lines: conflicts.iter().map(|c| c.conflicted_lines).sum(),
        conflicted_files: conflicts.len(),
        files_outside_conflicts: outside.len(),
        failing_tests_ours: validation.ours.failed_tests.len(),
        failing_tests_theirs: validation.theirs.failed_tests.len(),
        operators,
        family: candidate.family.name().to_string(),
    };
    let difficulty = difficulty::assess(&validation, &features);
    let substrate = &prepared.substrate;
    let id = task_id(&substrate.name, &substrate.tree_id, &commits);
    let fingerprint = near_duplicate::fingerprint(
        paths.iter().filter_map(|p| crate::snapshot::text_of(&conflicted, p).map(|t| (p.as_str(), t))),
    );
    Ok(Verdict::Kept(Box::new(Draft {
        id,
        fingerprint,
        substrate: index,
        candidate: candidate.clone(),
        commits,
        conflicted,
        conflicts,
        validation,
        difficulty,
        features,
    })))
}
