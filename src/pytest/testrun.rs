//! Runs a substrate's test command on a tree and reduces the run to an [`Outcome`],
//! with a content-addressed cache so that no tree is tested twice with the same command.
//!
//! With a coverage map ([`TestRunner::with_selection`]) a tree runs only the tests
//! [`super::select`] picks for it, and the runner confirms what such a run cannot vouch
//! for ([`super::confirm`]: a pass, a scaled time-out, a failure of an order-dependent
//! test) before returning a verdict; [`TestRunner::run_full`] always runs the whole
//! suite, and [`TestRunner::flips`] runs it again to catch flaky tests.
//!
//! A run's time limit (the substrate's `timeout_s`, or a selected run's scaled one) is
//! CPU time, with wall time as a backstop ([`crate::sandbox::cputime`]), however the
//! run is served: a time-out does not depend on the machine's load.
//!
//! A cache key covers everything that decides an outcome besides the tree: the command
//! as configured, its variables, the interpreter's version, the venv's installed
//! packages, the sandbox's [`Profile`] (limits, confinement) and, for a selected run,
//! the plugin and the selected ids. The runner counts the sandboxed runs it actually
//! executes (cache hits excluded), and the confirmations among them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use anyhow::{Context, Result};

use super::cache::write_atomically;
pub use super::cache::{OutcomeCache, CACHE_TEMP_PREFIX};
use super::confirm::{self, Confirmation, ConfirmationCounters, ConfirmationStats, OrderDependence};
use super::forkserver::{ForkServerPool, RunHooks, ServerSpec};
pub(crate) use super::outcome::Outcome;
use super::outcome::{executed_cases, outcome_of};
use super::report;
use super::select::{self, CoverageIndex, CoverageMap, Selection};
use super::venv::PythonEnv;
use super::{append_python_path, last_line};
use crate::sandbox::{materialised_sandbox, run_in_dir, run_in_fresh_tree, Limits, Profile, RunOutput, RunRequest};
use crate::snapshot::{content_id, sha256_hex, Snapshot};

mod probe;
mod selected;

/// Everything that decides a test run's outcome except the tree.
pub struct TestRunner {
    argv: Vec<String>,
    env: BTreeMap<String, String>,
    limits: Limits,
    /// Hash of (argv as configured, env, python version, venv packages, sandbox
    /// profile): half of every cache key.
    command_key: String,
    cache: Option<OutcomeCache>,
    /// HEAD and its coverage map, when runs are selected.
    selector: Option<Selector>,
    counters: Counters,
    /// Tests seen flipping between two runs of one tree, for the run report.
    flaky: Mutex<BTreeSet<String>>,
}

/// What a runner (or a run's runners together) executed: sandboxed test runs, cache
/// hits excluded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Sandboxed test runs actually executed.
    pub test_runs: usize,
    /// Summed wall time of those runs, and of starting fork servers.
    pub(crate) test_time: Duration,
    /// Test cases those runs executed (pytest's summary counts).
    pub test_cases: usize,
    /// Of `test_runs`, those fork servers ran (see [`super::forkserver`]).
    pub served_runs: usize,
    /// Fork servers started.
    pub servers_started: usize,
    /// Of `test_runs` (and cache hits), the runs that confirmed another run's verdict.
    pub confirmations: ConfirmationStats,
}

impl std::ops::Add for RunStats {
    type Output = RunStats;
    fn add(self, other: RunStats) -> RunStats {
        RunStats {
            test_runs: self.test_runs + other.test_runs,
            test_time: self.test_time + other.test_time,
            test_cases: self.test_cases + other.test_cases,
            served_runs: self.served_runs + other.served_runs,
            servers_started: self.servers_started + other.servers_started,
            confirmations: self.confirmations + other.confirmations,
        }
    }
}

impl std::iter::Sum for RunStats {
    fn sum<I: Iterator<Item = RunStats>>(runs: I) -> RunStats {
        runs.fold(RunStats::default(), |a, b| a + b)
    }
}

/// Sandboxed runs actually executed (cache hits excluded).
#[derive(Debug, Default)]
struct Counters {
    runs: AtomicUsize,
    nanos: AtomicU64,
    cases: AtomicUsize,
    /// Of `runs`, those a fork server ran.
    served: AtomicUsize,
    confirmations: ConfirmationCounters,
}

/// What selected runs need: HEAD, its coverage map, fork servers warm on HEAD, and the
/// tests that fail when their file runs alone.
struct Selector {
    head: Snapshot,
    index: CoverageIndex,
    /// `None` for a command other than `python -m pytest ...`, or with
    /// `MERGEFORGE_FORK_SERVER=off`: selected runs then start fresh processes.
    servers: Option<ForkServerPool>,
    order: OrderDependence,
}

/// Which fork-server children may run a whole suite (before a new process does).
#[derive(Debug, Clone, Copy)]
enum Serving {
    /// None: a new process (gold trees, HEAD).
    NewProcess,
    /// A child that imports the tree afresh (trees that need not be swappable).
    Fresh,
    /// A child that swaps the changed functions in, else one that imports afresh
    /// (confirmations of selected runs: their trees are swappable).
    SwapOrFresh,
}

impl Serving {
    fn hooks(self) -> Vec<RunHooks<'static>> {
        match self {
            Serving::NewProcess => Vec::new(),
            Serving::Fresh => vec![RunHooks::fresh()],
            Serving::SwapOrFresh => vec![RunHooks::swapped(), RunHooks::fresh()],
        }
    }
}

/// How the plugin takes part in a run.
enum PluginMode<'a> {
    /// Record a coverage map.
    Trace,
    /// Run only these node ids: collecting only them (`narrow`), or deselecting the
    /// others after a full collection.
    Select { ids: &'a [String], narrow: bool },
}

/// What a run with the plugin produced.
struct PluginRun {
    output: RunOutput,
    /// The coverage map a traced run wrote.
    trace: Option<Vec<u8>>,
    /// A narrowed collection missed some selected ids.
    mismatch: bool,
}

/// Selected runs print Python's own tracebacks: pytest's default style parses every file
/// of a traceback to show whole statements (half a second for a collection error through
/// a large module). Which tests fail does not change, but how a session ends can: with
/// the default style a `MemoryError` while rendering a traceback ends the session with an
/// internal error, where native tracebacks go on to the next test (which may then hang).
/// So full runs, served or not, keep the command's own style: a selected verdict whose
/// outcome rests on such a difference (a pass, a time-out) is confirmed by one of them.
const FAST_TRACEBACKS: &str = "--tb=native";

/// Where a traced run leaves its coverage map, relative to the sandbox root.
const TRACE_FILE: &str = "coverage.json";
/// The list of selected node ids, relative to the sandbox root (or a server's run folder).
const SELECT_FILE: &str = "selected.txt";
/// What the plugin writes next to [`SELECT_FILE`] when a narrowed collection missed ids.
const MISMATCH_FILE: &str = "selected.txt.mismatch";

impl TestRunner {
    /// `test_command` as configured (with `python` meaning the venv's interpreter).
    pub fn new(
        test_command: &[String],
        env: &BTreeMap<String, String>,
        timeout: Duration,
        python: &PythonEnv,
        cache: Option<OutcomeCache>,
    ) -> Self {
        let mut argv: Vec<String> = test_command
            .iter()
            .map(|arg| {
                if arg == "python" || arg == "python3" {
                    python.interpreter.to_string_lossy().into_owned()
                } else {
                    arg.clone()
                }
            })
            .collect();
        if report::is_pytest(&argv) {
            argv.push("-rfE".to_string());
        }
        let limits = Limits::for_tests(timeout);
        let identity = serde_json::json!({
            "test_command": test_command,
            "env": env,
            "python": python.version,
            "pytest": python.pytest,
            "packages": python.packages,
            "sandbox": Profile::of(&limits),
        });
        TestRunner {
            argv,
            env: env.clone(),
            limits,
            command_key: sha256_hex(identity.to_string().as_bytes()),
            cache,
            selector: None,
            counters: Counters::default(),
            flaky: Mutex::new(BTreeSet::new()),
        }
    }

    /// Selects the tests of later runs by `map`, recorded on `head` (a pytest command only).
    /// Selected runs go to fork servers warm on `head` when the command is
    /// `python -m pytest ...` (unless `MERGEFORGE_FORK_SERVER=off`). Each test file of
    /// the map runs alone on `head` first, to find the order-dependent tests.
    pub fn with_selection(mut self, head: Snapshot, map: CoverageMap) -> Self {
        if report::is_pytest(&self.argv) {
            let index = CoverageIndex::new(map);
            let order = match self.order_dependence(&head, &index) {
                Ok(order) => order,
                Err(err) => {
                    log::warn!("running the test files alone failed ({err:#}); every selected failure is confirmed by a full run");
                    OrderDependence::Unknown
                }
            };
            let servers = self.server_spec(&head).map(ForkServerPool::new);
            self.selector = Some(Selector { head, index, servers, order });
        }
        self
    }

    /// The coverage map of HEAD this runner selects by, if it has one.
    pub(crate) fn coverage(&self) -> Option<&CoverageMap> {
        self.selector.as_ref().map(|s| s.index.map())
    }

    /// Runs each test file of `index` alone on `head` (a new process collecting only its
    /// tests; cached), in parallel: the tests failing there are order-dependent.
    fn order_dependence(&self, head: &Snapshot, index: &CoverageIndex) -> Result<OrderDependence> {
        use rayon::prelude::*;
        let files = index.tests_by_file();
        let alone: Vec<(String, (Vec<String>, Outcome))> = files
            .into_par_iter()
            .map(|(file, ids)| {
                let identity = format!(
                    "{}:{}:alone:{}:{}",
                    self.command_key,
                    content_id(head),
                    select::plugin_version(),
                    ids.join("\n")
                );
                let (outcome, ran) = self.cached_run(&sha256_hex(identity.as_bytes()), || {
                    let mode = PluginMode::Select { ids: &ids, narrow: true };
                    Ok(self.run_with_plugin(head, mode, &self.limits)?.output)
                })?;
                self.counters.confirmations.count_alone(ran.then(|| Duration::from_millis(outcome.duration_ms)));
                Ok((file, (ids, outcome)))
            })
            .collect::<Result<_>>()?;
        Ok(OrderDependence::from_alone_runs(&alone.into_iter().collect()))
    }

    /// The tests that fail when their file runs alone on HEAD (`None` without a
    /// selection, or when the files could not be run alone).
    pub fn order_dependent_tests(&self) -> Option<&BTreeSet<String>> {
        self.selector.as_ref().and_then(|s| s.order.tests())
    }

    /// What a fork server of `head` runs: the command's pytest arguments and the plugin.
    fn server_spec(&self, head: &Snapshot) -> Option<ServerSpec> {
        if std::env::var("MERGEFORGE_FORK_SERVER").is_ok_and(|v| v == "off") {
            return None;
        }
        let (python, rest) = self.argv.split_first()?;
        let pytest_args = rest.strip_prefix(&["-m".to_string(), "pytest".to_string()])?;
        let mut pytest_args = pytest_args.to_vec();
        pytest_args.extend(["-p".to_string(), select::PLUGIN_MODULE.to_string()]);
        Some(ServerSpec {
            head: head.clone(),
            python: python.clone(),
            pytest_args,
            env: self.env.clone(),
            limits: self.limits.clone(),
            modules: vec![(select::PLUGIN_MODULE.to_string(), select::PLUGIN_SOURCE)],
        })
    }

    /// What this runner executed so far.
    pub fn stats(&self) -> RunStats {
        RunStats {
            test_runs: self.counters.runs.load(Ordering::Relaxed),
            test_time: Duration::from_nanos(self.counters.nanos.load(Ordering::Relaxed))
                + self.pool().map_or(Duration::ZERO, |p| p.start_time()),
            test_cases: self.counters.cases.load(Ordering::Relaxed),
            served_runs: self.counters.served.load(Ordering::Relaxed),
            servers_started: self.pool().map_or(0, |p| p.servers_started()),
            confirmations: self.counters.confirmations.stats(),
        }
    }

    /// The tests seen flipping between two runs of one tree ([`Self::flips`]), sorted.
    pub fn flaky_tests(&self) -> Vec<String> {
        self.flaky.lock().map(|f| f.iter().cloned().collect()).unwrap_or_default()
    }

    fn pool(&self) -> Option<&ForkServerPool> {
        self.selector.as_ref().and_then(|s| s.servers.as_ref())
    }

    /// The tests `tree` would run: a selection with a coverage map, else the full suite.
    pub fn selection(&self, tree: &Snapshot) -> Selection {
        match &self.selector {
            Some(selector) => selector.index.select(&selector.head, tree),
            None => Selection::Full(select::FullReason::NoCoverageMap),
        }
    }

    /// The verdict of the tests on `tree` (or the cached one): the full suite's, or with
    /// a selection the selected tests', confirmed where a selected run cannot vouch for
    /// it ([`super::confirm`]), so that it is the verdict the full suite gives.
    pub fn run(&self, tree: &Snapshot) -> Result<Outcome> {
        match self.selection(tree) {
            Selection::Tests(ids) => Ok(self.run_selected(tree, &ids)?.0),
            Selection::Full(_) => Ok(self.run_suite(tree, Serving::Fresh)?.0),
        }
    }

    /// Runs the full suite on `tree` in a new process (or returns the cached outcome for
    /// it): how gold trees are proven.
    pub fn run_full(&self, tree: &Snapshot) -> Result<Outcome> {
        Ok(self.run_suite(tree, Serving::NewProcess)?.0)
    }

    /// Runs the full suite on `tree` in a new process and lists the test ids that passed
    /// (pytest's `-rfEp` summary), or returns the cached run: how the judgement runs a
    /// tree's own tests ([`crate::judge::own_tests`]). The ids are empty for a command
    /// that is not pytest.
    pub(crate) fn run_listed(&self, tree: &Snapshot) -> Result<(Outcome, BTreeSet<String>)> {
        let key = sha256_hex(format!("{}:listed", self.suite_key(tree)).as_bytes());
        if let Some(hit) = self.cache.as_ref().and_then(|cache| cache.get_listed(&key)) {
            return Ok(hit);
        }
        let mut argv = self.argv.clone();
        if report::is_pytest(&argv) {
            argv.push("-rfEp".to_string());
        }
        let output = run_in_fresh_tree(&RunRequest { tree, argv: &argv, env: &self.env, limits: &self.limits })?;
        let passing = report::passed_test_ids(&output.output);
        let outcome = self.executed(output);
        match &self.cache {
            Some(cache) => cache.put_listed(&key, outcome, passing),
            None => Ok((outcome, passing)),
        }
    }

    /// Runs the full suite on `tree` once more (on a fork-server child that imports it
    /// afresh when the runner has servers, else in a new process; cached apart from the
    /// first run) and returns the tests whose verdict differs from `first`'s, a run of the
    /// same tree: the flaky tests, also kept for [`Self::flaky_tests`]. How a pass that a
    /// verdict rests on (HEAD's, gold's) is confirmed.
    pub(crate) fn flips(&self, tree: &Snapshot, first: &Outcome) -> Result<Vec<String>> {
        let key = sha256_hex(format!("{}:repeat", self.suite_key(tree)).as_bytes());
        let (again, ran) = self.cached_run(&key, || self.execute_suite(tree, Serving::Fresh))?;
        self.counted(Confirmation::Repeat, first, &again, ran);
        let flipped = confirm::flipped_tests(first, &again);
        if let Ok(mut flaky) = self.flaky.lock() {
            flaky.extend(flipped.iter().cloned());
        }
        Ok(flipped)
    }

    /// The cache key of a full run of `tree` (however it is served: every way gives the
    /// same outcome).
    fn suite_key(&self, tree: &Snapshot) -> String {
        sha256_hex(format!("{}:{}", self.command_key, content_id(tree)).as_bytes())
    }

    /// Runs the full suite (or returns its cached outcome); true when it ran.
    fn run_suite(&self, tree: &Snapshot, serving: Serving) -> Result<(Outcome, bool)> {
        self.cached_run(&self.suite_key(tree), || self.execute_suite(tree, serving))
    }

    /// Runs the full suite on the first fork-server child `serving` allows that can run
    /// the tree exactly, else in a new process.
    fn execute_suite(&self, tree: &Snapshot, serving: Serving) -> Result<RunOutput> {
        if let Some(servers) = self.pool() {
            for hooks in serving.hooks() {
                if let Some(output) = servers.run(tree, &hooks, self.limits.time_limit) {
                    self.counters.served.fetch_add(1, Ordering::Relaxed);
                    return Ok(output);
                }
            }
        }
        run_in_fresh_tree(&RunRequest { tree, argv: &self.argv, env: &self.env, limits: &self.limits })
    }

    /// The coverage map of `head`, from `dir` (a cache keyed by the test command, the
    /// tree and the plugin) or from a traced run of the full suite.
    pub fn coverage_map(&self, head: &Snapshot, dir: &Path) -> Result<CoverageMap> {
        let identity = format!("{}:{}:coverage:{}", self.command_key, content_id(head), select::plugin_version());
        let path = dir.join(format!("{}.json", sha256_hex(identity.as_bytes())));
        if let Ok(bytes) = std::fs::read(&path) {
            if let Ok(map) = CoverageMap::from_json(&bytes) {
                return Ok(map);
            }
        }
        let PluginRun { output, trace, .. } = self.run_with_plugin(head, PluginMode::Trace, &self.limits)?;
        self.count(&output);
        let did_not_pass = || {
            anyhow::anyhow!(
                "the coverage trace of the HEAD tree did not pass ({}); its tests run in full",
                last_line(&output.output)
            )
        };
        let bytes = trace.ok_or_else(did_not_pass)?;
        let mut map = CoverageMap::from_json(&bytes)?;
        if output.exit_code == Some(0) {
            write_atomically(&path, &bytes).context("writing the coverage map cache")?;
            return Ok(map);
        }
        // Tests failing only under the tracer (reading their own frames, or the recursion
        // limit) run in every selection, if the suite passes untraced.
        if !map.mark_untraced(report::failing_test_ids(&output.output)) || !self.run_full(head)?.passed {
            return Err(did_not_pass());
        }
        log::warn!(
            "{} test(s) fail only under the coverage trace and run in every selection: {}",
            map.untraced.len(),
            map.untraced.join(", ")
        );
        write_atomically(&path, &serde_json::to_vec(&map)?).context("writing the coverage map cache")?;
        Ok(map)
    }

    /// Runs the command in a fresh copy of `tree` with the plugin loaded from a folder
    /// of the sandbox root (not the tree).
    fn run_with_plugin(&self, tree: &Snapshot, mode: PluginMode, limits: &Limits) -> Result<PluginRun> {
        let (sandbox, work) = materialised_sandbox(tree)?;
        let root = sandbox.path();
        let plugin_dir = root.join("plugin");
        std::fs::create_dir_all(&plugin_dir)?;
        std::fs::write(plugin_dir.join(format!("{}.py", select::PLUGIN_MODULE)), select::PLUGIN_SOURCE)
            .context("writing the selection plugin into the sandbox")?;
        let mut env = self.env.clone();
        append_python_path(&mut env, &plugin_dir);
        match mode {
            PluginMode::Trace => {
                env.insert("MERGEFORGE_TRACE".to_string(), root.join(TRACE_FILE).to_string_lossy().into_owned());
            }
            PluginMode::Select { ids, narrow } => write_selection(root, ids, narrow, &mut env)?,
        }
        let mut argv = self.argv.clone();
        argv.extend(["-p".to_string(), select::PLUGIN_MODULE.to_string()]);
        if matches!(mode, PluginMode::Select { .. }) {
            argv.push(FAST_TRACEBACKS.to_string());
        }
        let output = run_in_dir(&work, root, &argv, &env, limits)?;
        Ok(PluginRun {
            output,
            trace: std::fs::read(root.join(TRACE_FILE)).ok(),
            mismatch: root.join(MISMATCH_FILE).exists(),
        })
    }

    fn count(&self, output: &RunOutput) {
        self.counters.runs.fetch_add(1, Ordering::Relaxed);
        self.counters.nanos.fetch_add(output.duration.as_nanos() as u64, Ordering::Relaxed);
        self.counters.cases.fetch_add(executed_cases(&output.output), Ordering::Relaxed);
    }

    /// The cached outcome under `key`, or the outcome of `execute` (counted, cached), and
    /// whether it was executed.
    fn cached_run(&self, key: &str, execute: impl FnOnce() -> Result<RunOutput>) -> Result<(Outcome, bool)> {
        if let Some(cache) = &self.cache {
            if let Some(outcome) = cache.get(key) {
                return Ok((outcome, false));
            }
        }
        let outcome = self.executed(execute()?);
        match &self.cache {
            Some(cache) => Ok((cache.put(key, outcome)?, true)),
            None => Ok((outcome, true)),
        }
    }

    /// A run executed: counted, and reduced to its outcome.
    fn executed(&self, output: RunOutput) -> Outcome {
        self.count(&output);
        outcome_of(&output)
    }
}

/// Writes the selected node ids into `dir` for the plugin and sets the variables that
/// point it there (and narrow the collection to them, with `narrow`).
fn write_selection(dir: &Path, ids: &[String], narrow: bool, env: &mut BTreeMap<String, String>) -> Result<()> {
    let listing = dir.join(SELECT_FILE);
    std::fs::write(&listing, ids.iter().map(|id| format!("{id}\n")).collect::<String>())
        .context("writing the selected test ids")?;
    env.insert("MERGEFORGE_SELECT".to_string(), listing.to_string_lossy().into_owned());
    if narrow {
        env.insert("MERGEFORGE_NARROW".to_string(), "1".to_string());
    }
    Ok(())
}
