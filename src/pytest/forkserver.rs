//! Fork servers: warm pytest processes that run selected tests on changed trees without
//! paying for interpreter start-up, imports and collection each time.
//!
//! A server is started like any sandboxed command (same limits, cgroup, network
//! namespace and Landlock confinement) in a private copy of the HEAD tree, imports
//! pytest and collects the whole suite once, then forks one child per run
//! (`mergeforge_forkserver.py` says how). For a run this module writes the changed files
//! into the server's tree, lets the child swap the new function code in, waits for it
//! within the run's time limit, reads its capped output, and puts HEAD back. As for any
//! sandboxed command the limit is the child's CPU time ([`crate::sandbox::cputime`]):
//! its cgroup's usage over the run where the server has a cgroup (the server itself
//! only waits meanwhile), else its process group's in `/proc` while it runs and, at its
//! end, the usage the server reaps it with; wall time, less the time it waited for a
//! CPU, is only a backstop. Past the limit its process group and every other process in
//! the cgroup but the server are killed. The server's warm-up is no verdict (a server
//! that does not start sends its runs to new processes): the wall backstop of the
//! limit, on the plain wall clock, bounds it. A tree
//! the server cannot serve exactly (an added or deleted file, a change outside function
//! bodies) is refused and the caller runs it in a fresh process. A server whose tree a
//! test changed is retired; one that misbehaves in any way is killed.
//!
//! A [`ForkServerPool`] holds idle servers for one HEAD tree and command, one per
//! concurrent caller; a process keeps at most [`MAX_LIVE_SERVERS`] alive over all its
//! pools. Dropping a pool kills and reaps its servers, so their CPU time (and their
//! children's) is accounted to this process's children.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

use super::{append_python_path, last_line};
use crate::sandbox::confine::CommandCgroups;
use crate::sandbox::cputime::{self, CpuMeter};
use crate::sandbox::{kill_group, materialised_sandbox, read_capped, sandboxed_command, Limits, RunOutput, Sandboxed};
use crate::snapshot::Snapshot;

/// The server program (see its docstring for the protocol).
pub(crate) const SERVER_SOURCE: &str = include_str!("mergeforge_forkserver.py");
const SERVER_FILE: &str = "mergeforge_forkserver.py";
/// The child's exit status when it refuses a tree before running anything.
const REFUSED: i32 = 86;
/// How long a server may take to answer anything but the end of a run.
const REPLY_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a running child's CPU time is read.
const CPU_READ_EVERY: Duration = Duration::from_millis(50);
/// Servers kept alive at once in this process, over all pools (each holds a warm
/// interpreter, tens of MiB): a run over many substrates closes idle servers beyond it.
const MAX_LIVE_SERVERS: usize = 16;
/// Servers alive in this process.
static LIVE_SERVERS: AtomicUsize = AtomicUsize::new(0);

/// Everything a server of one HEAD tree and one pytest command needs.
pub struct ServerSpec {
    pub head: Snapshot,
    /// The interpreter (the command's first word).
    pub python: String,
    /// pytest's arguments: the command's words after `-m pytest`, plugins included (a
    /// run adds its own, [`RunHooks::args`]).
    pub pytest_args: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// Limits of the server and of each child; the wall backstop of `time_limit` bounds
    /// the warm-up.
    pub limits: Limits,
    /// Python modules to put on the server's `PYTHONPATH`: (module name, source).
    pub modules: Vec<(String, &'static str)>,
}

/// How a child gets the changed tree's code (its name is the protocol's word).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub(crate) enum ChildMode {
    /// Swap the new code of changed functions into the warm modules (exact only for
    /// changes inside function bodies; refused otherwise).
    Swap,
    /// Forget the work tree's modules and import them again, as a new process would.
    Fresh,
}

impl ChildMode {
    fn name(self) -> &'static str {
        self.into()
    }
}

/// How one run on a server ended.
pub(crate) enum Served {
    Ran(RunOutput),
    /// The server cannot run this tree exactly: run it in a fresh process.
    Refused,
}

/// A run's own files, variables and arguments: `prepare` writes into the run's folder and
/// returns the variables to set; `accept` looks at the folder after the run (false:
/// refused); `args` go after the server's pytest arguments.
pub struct RunHooks<'a> {
    pub(crate) mode: ChildMode,
    pub(crate) prepare: &'a dyn Fn(&Path) -> Result<BTreeMap<String, String>>,
    pub(crate) accept: &'a dyn Fn(&Path) -> bool,
    pub(crate) args: &'a [&'a str],
}

impl RunHooks<'_> {
    /// A run of the command as it is, its modules imported afresh.
    pub fn fresh() -> RunHooks<'static> {
        RunHooks { mode: ChildMode::Fresh, prepare: &|_| Ok(BTreeMap::new()), accept: &|_| true, args: &[] }
    }

    /// A run of the command as it is (every test collected and run), the changed
    /// functions swapped into the warm modules.
    pub fn swapped() -> RunHooks<'static> {
        RunHooks { mode: ChildMode::Swap, prepare: &|_| Ok(BTreeMap::new()), accept: &|_| true, args: &[] }
    }
}

/// Idle servers for one spec; a server is taken for a run and put back after it.
pub struct ForkServerPool {
    spec: ServerSpec,
    idle: Mutex<Vec<ForkServer>>,
    /// Set when a server failed to start: the pool then serves nothing.
    broken: AtomicBool,
    /// Whether a child importing the tree afresh runs HEAD as a new process does, found
    /// on the first such run ([`ForkServerPool::fresh_is_sound`]).
    fresh_sound: OnceLock<bool>,
    /// Servers started, and the wall time their start-ups took (warm-up included).
    started: AtomicUsize,
    start_nanos: AtomicU64,
}

impl ForkServerPool {
    pub fn new(spec: ServerSpec) -> Self {
        ForkServerPool {
            spec,
            idle: Mutex::new(Vec::new()),
            broken: AtomicBool::new(false),
            fresh_sound: OnceLock::new(),
            started: AtomicUsize::new(0),
            start_nanos: AtomicU64::new(0),
        }
    }

    /// Servers started so far.
    pub(crate) fn servers_started(&self) -> usize {
        self.started.load(Ordering::Relaxed)
    }

    /// Wall time spent starting them (interpreter, imports, collecting the suite).
    pub(crate) fn start_time(&self) -> Duration {
        Duration::from_nanos(self.start_nanos.load(Ordering::Relaxed))
    }

    /// Runs `tree` on a server with time limit `timeout`; `None` when no server can run
    /// it exactly (refused, or the server failed), for the caller to run it in a fresh
    /// process.
    pub fn run(&self, tree: &Snapshot, hooks: &RunHooks, timeout: Duration) -> Option<RunOutput> {
        if hooks.mode == ChildMode::Fresh && !self.fresh_is_sound(timeout) {
            return None;
        }
        self.run_on_server(tree, hooks, timeout)
    }

    /// Whether children that forget the work tree's modules and import them again pass
    /// HEAD, as a new process does (HEAD passes: the substrate was taken for it). Not
    /// where a module registers its objects in interpreter-wide state at import: idna's
    /// codec stays registered with the forgotten module's classes (`codecs.register`), so
    /// its codec tests fail in every such child, and every tree the swap refused (a
    /// function taken out) failed with them. Checked once a pool, on the first such run;
    /// when unsound, those runs go to new processes.
    fn fresh_is_sound(&self, timeout: Duration) -> bool {
        *self.fresh_sound.get_or_init(|| {
            let output = self.run_on_server(&self.spec.head, &RunHooks::fresh(), timeout);
            let sound = output.as_ref().is_some_and(|o| o.exit_code == Some(0) && !o.timed_out);
            if let (false, Some(output)) = (sound, &output) {
                log::warn!(
                    "the fork server's children that import the code afresh fail at HEAD ({}); whole-suite runs go to new processes",
                    last_line(&output.output)
                );
            }
            sound
        })
    }

    fn run_on_server(&self, tree: &Snapshot, hooks: &RunHooks, timeout: Duration) -> Option<RunOutput> {
        if self.broken.load(Ordering::Relaxed) {
            return None;
        }
        let idle = self.idle.lock().ok().and_then(|mut idle| idle.pop());
        let mut server = match idle {
            Some(server) => server,
            None => match self.start() {
                Ok(server) => server,
                Err(error) => {
                    if !self.broken.swap(true, Ordering::Relaxed) {
                        log::warn!("the pytest fork server did not start ({error:#}); its runs go to fresh processes");
                    }
                    return None;
                }
            },
        };
        let served = server.serve(&self.spec, tree, hooks, timeout);
        let reusable = served.is_ok() && !server.retired && LIVE_SERVERS.load(Ordering::Relaxed) <= MAX_LIVE_SERVERS;
        if reusable {
            if let Ok(mut idle) = self.idle.lock() {
                idle.push(server);
            }
        }
        match served {
            Ok(Served::Ran(output)) => Some(output),
            Ok(Served::Refused) | Err(_) => None,
        }
    }

    /// Starts a server, counting it and the time it took.
    fn start(&self) -> Result<ForkServer> {
        let started = Instant::now();
        let server = ForkServer::start(&self.spec);
        self.started.fetch_add(1, Ordering::Relaxed);
        self.start_nanos.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        server
    }
}

/// One running server.
struct ForkServer {
    process: Child,
    control: ChildStdin,
    replies: Receiver<Reply>,
    cgroup: Option<CommandCgroups>,
    sandbox: tempfile::TempDir,
    work: PathBuf,
    runs: u64,
    /// A test changed the server's tree: do not use it again.
    retired: bool,
}

/// How a child's run ended.
struct ChildEnd {
    /// Its exit code, or minus the signal that ended it.
    status: i64,
    timed_out: bool,
    /// Wall time, and CPU time of the child and its descendants.
    duration: Duration,
    cpu: Duration,
}

/// A message from the server.
#[derive(Debug)]
enum Reply {
    Ready(i64),
    Pid(i64),
    /// The child's exit code (or minus its signal) and the CPU time it and the
    /// descendants it reaped used.
    Status(i64, Duration),
}

impl ForkServer {
    /// Starts a server in a fresh copy of the HEAD tree and waits for its warm-up.
    fn start(spec: &ServerSpec) -> Result<ForkServer> {
        let (sandbox, work) = materialised_sandbox(&spec.head)?;
        let root = sandbox.path().to_path_buf();
        let modules = root.join("server");
        std::fs::create_dir_all(&modules)?;
        std::fs::write(modules.join(SERVER_FILE), SERVER_SOURCE).context("writing the fork server into the sandbox")?;
        for (name, source) in &spec.modules {
            std::fs::write(modules.join(format!("{name}.py")), source)?;
        }
        let mut env = spec.env.clone();
        append_python_path(&mut env, &modules);
        let mut argv = vec![
            spec.python.clone(),
            modules.join(SERVER_FILE).to_string_lossy().into_owned(),
            root.join("warm-up.log").to_string_lossy().into_owned(),
        ];
        argv.extend(spec.pytest_args.iter().cloned());
        let Sandboxed { mut command, cgroup } = sandboxed_command(&work, &root, &argv, &env, &spec.limits)?;
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut process = command.spawn().context("starting the pytest fork server")?;
        let control = process.stdin.take().context("fork server stdin")?;
        let stdout = process.stdout.take().context("fork server stdout")?;
        let (sender, replies) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(|l| l.ok()) {
                let Some(reply) = parse_reply(&line) else { break };
                if sender.send(reply).is_err() {
                    break;
                }
            }
        });
        LIVE_SERVERS.fetch_add(1, Ordering::Relaxed);
        let server = ForkServer { process, control, replies, cgroup, sandbox, work, runs: 0, retired: false };
        match server.receive(cputime::wall_backstop(spec.limits.time_limit))? {
            Reply::Ready(0) => {}
            Reply::Ready(status) => {
                let log = std::fs::read_to_string(root.join("warm-up.log")).unwrap_or_default();
                bail!("collecting the HEAD tree's tests exited with {status}: {}", last_line(&log));
            }
            other => bail!("unexpected fork server reply {other:?}"),
        }
        if let Some(path) = restore_and_check(&server.work, &spec.head, &[])? {
            bail!("collecting the tests changed the HEAD tree: {path}");
        }
        Ok(server)
    }

    /// Runs the tests on `tree` in a child of the server.
    fn serve(&mut self, spec: &ServerSpec, tree: &Snapshot, hooks: &RunHooks, timeout: Duration) -> Result<Served> {
        let head = &spec.head;
        let Some(changed) = changed_paths(head, tree) else { return Ok(Served::Refused) };
        self.runs += 1;
        let run_dir = self.sandbox.path().join("runs").join(self.runs.to_string());
        let home = run_dir.join("home");
        let tmp = run_dir.join("tmp");
        std::fs::create_dir_all(&home)?;
        std::fs::create_dir_all(&tmp)?;
        let mut entries = Vec::new();
        for path in &changed {
            std::fs::write(self.work.join(path), &tree[*path])?;
            entries.push(self.work.join(path));
        }
        let mut env = (hooks.prepare)(&run_dir)?;
        env.insert("HOME".to_string(), home.to_string_lossy().into_owned());
        env.insert("TMPDIR".to_string(), tmp.to_string_lossy().into_owned());
        env.insert("XDG_CACHE_HOME".to_string(), tmp.join("cache").to_string_lossy().into_owned());
        let output_path = run_dir.join("output.txt");
        let request = serde_json::json!({
            "output": output_path, "env": env, "changed": entries, "mode": hooks.mode.name(), "args": hooks.args
        });
        let outcome = self.run_child(&request, timeout);
        let tree_intact = restore_and_check(&self.work, head, &changed)?.is_none();
        self.retired |= !tree_intact;
        let ChildEnd { status, timed_out, duration, cpu } = outcome?;
        let file = std::fs::File::open(&output_path).ok();
        let (output, truncated) = read_capped(file, spec.limits.output_cap_bytes);
        let accepted = (hooks.accept)(&run_dir);
        let _ = std::fs::remove_dir_all(&run_dir);
        if status == i64::from(REFUSED) || !accepted {
            return Ok(Served::Refused);
        }
        Ok(Served::Ran(RunOutput {
            exit_code: if timed_out || status < 0 { None } else { i32::try_from(status).ok() },
            timed_out,
            output,
            truncated,
            duration,
            cpu,
        }))
    }

    /// Sends a request and waits for the child's end, killing it past its time limit
    /// `timeout` ([`cputime::past_limit`]).
    fn run_child(&mut self, request: &serde_json::Value, timeout: Duration) -> Result<ChildEnd> {
        let cgroup = self.cgroup.as_ref().and_then(|c| c.cpu_cgroup());
        let since = cgroup.and_then(cputime::cgroup_usage).unwrap_or_default();
        let started = Instant::now();
        writeln!(self.control, "{request}").context("sending a run to the fork server")?;
        self.control.flush()?;
        let Reply::Pid(pid) = self.receive(REPLY_TIMEOUT)? else { bail!("the fork server did not report its child") };
        let pid = i32::try_from(pid).context("child pid")?;
        let meter = CpuMeter::new(cgroup, since, pid);
        let (status, reaped_cpu, killed) = self.wait_child(pid, &meter, timeout, started)?;
        let cpu = meter.total_cpu(reaped_cpu);
        let duration = started.elapsed();
        // Whatever the test left behind goes too, even processes in a new session.
        self.kill_child(pid);
        Ok(ChildEnd { status, timed_out: killed || cpu >= timeout, duration, cpu })
    }

    /// Waits for the server's report of child `pid`'s end, reading its CPU time as it
    /// runs and killing it past `timeout`: (status, CPU time reaped, killed).
    fn wait_child(
        &self,
        pid: i32,
        meter: &CpuMeter,
        timeout: Duration,
        started: Instant,
    ) -> Result<(i64, Duration, bool)> {
        loop {
            match self.replies.recv_timeout(CPU_READ_EVERY) {
                Ok(Reply::Status(status, cpu)) => return Ok((status, cpu, false)),
                Ok(other) => bail!("unexpected fork server reply {other:?}"),
                Err(RecvTimeoutError::Disconnected) => bail!("the fork server exited"),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if cputime::past_limit(timeout, meter.used(), started.elapsed()) {
                self.kill_child(pid);
                return match self.receive(REPLY_TIMEOUT)? {
                    Reply::Status(status, cpu) => Ok((status, cpu, true)),
                    other => bail!("unexpected fork server reply {other:?}"),
                };
            }
        }
    }

    /// Kills child `pid`'s process group and every process in the cgroup but the server.
    fn kill_child(&self, pid: i32) {
        kill_group(pid);
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill_all_except(i32::try_from(self.process.id()).ok());
        }
    }

    fn receive(&self, timeout: Duration) -> Result<Reply> {
        match self.replies.recv_timeout(timeout) {
            Ok(reply) => Ok(reply),
            Err(RecvTimeoutError::Timeout) => bail!("the fork server did not answer within {}s", timeout.as_secs()),
            Err(RecvTimeoutError::Disconnected) => bail!("the fork server exited"),
        }
    }
}

impl Drop for ForkServer {
    fn drop(&mut self) {
        LIVE_SERVERS.fetch_sub(1, Ordering::Relaxed);
        if let Ok(pid) = i32::try_from(self.process.id()) {
            kill_group(pid);
        }
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill_all();
        }
        let _ = self.process.kill();
        // Reaping it adds its CPU time, and its children's, to ours.
        let _ = self.process.wait();
    }
}

fn parse_reply(line: &str) -> Option<Reply> {
    let value: serde_json::Value = serde_json::from_str(line).ok()?;
    let field = |name: &str| value.get(name).and_then(serde_json::Value::as_i64);
    let cpu = || Duration::from_micros(field("cpu_us").unwrap_or(0).max(0) as u64);
    field("ready")
        .map(Reply::Ready)
        .or_else(|| field("pid").map(Reply::Pid))
        .or_else(|| field("status").map(|status| Reply::Status(status, cpu())))
}

/// The paths whose content differs between `head` and `tree`; `None` if a file was
/// added or deleted (a server only swaps code of files it has imported).
fn changed_paths<'a>(head: &Snapshot, tree: &'a Snapshot) -> Option<Vec<&'a String>> {
    if head.len() != tree.len() {
        return None;
    }
    let mut changed = Vec::new();
    for (path, content) in tree {
        match head.get(path) {
            Some(old) if old == content => {}
            Some(_) => changed.push(path),
            None => return None,
        }
    }
    Some(changed)
}

/// Puts HEAD's content back into the `changed` files of `work`, removes the test
/// caches ([`CACHE_DIRS`]), and names the first path where `work` differs from `head` (a file
/// written, changed or removed), if any.
fn restore_and_check(work: &Path, head: &Snapshot, changed: &[&String]) -> Result<Option<String>> {
    for path in changed {
        std::fs::write(work.join(path), &head[*path])
            .with_context(|| format!("restoring {path} in the fork server's tree"))?;
    }
    let mut seen = BTreeSet::new();
    if let Some(differs) = first_difference(work, "", head, &mut seen)? {
        return Ok(Some(differs));
    }
    Ok(head.keys().find(|path| !seen.contains(path.as_str())).map(|missing| format!("{missing} (removed)")))
}

/// Folders tests write as caches, removed between runs when HEAD has none: pytest's,
/// Python's, and hypothesis' example database (written while collecting, by attrs'
/// suite).
const CACHE_DIRS: [&str; 3] = [".pytest_cache", "__pycache__", ".hypothesis"];

/// coverage.py's data file (`.coverage`, or `.coverage.<host>.<pid>…` in parallel
/// mode), which pytest-cov writes while collecting when the settings add `--cov`.
fn is_coverage_data(name: &str) -> bool {
    name == ".coverage" || name.starts_with(".coverage.")
}

fn first_difference(dir: &Path, prefix: &str, head: &Snapshot, seen: &mut BTreeSet<String>) -> Result<Option<String>> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let relative = format!("{prefix}{name}");
        let kind = entry.file_type()?;
        if kind.is_dir() {
            if CACHE_DIRS.contains(&name.as_str()) && !head.keys().any(|p| p.starts_with(&format!("{relative}/"))) {
                std::fs::remove_dir_all(entry.path())?;
                continue;
            }
            if let Some(differs) = first_difference(&entry.path(), &format!("{relative}/"), head, seen)? {
                return Ok(Some(differs));
            }
        } else if kind.is_file() && is_coverage_data(&name) && !head.contains_key(&relative) {
            std::fs::remove_file(entry.path())?;
        } else if !kind.is_file() || head.get(&relative).map(|c| &c[..]) != Some(&std::fs::read(entry.path())?[..]) {
            return Ok(Some(relative));
        } else {
            seen.insert(relative);
        }
    }
    Ok(None)
}
