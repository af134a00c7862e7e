//! Runs untrusted commands (substrate tests, later agent commands) with limits.
//!
//! The sandbox owns: a private working directory per run, a scrubbed environment
//! (an allow-list plus the caller's extra variables, `HOME` and `TMPDIR` inside the
//! sandbox), resource limits (address space, CPU time, file size, open files), a time
//! limit decided by the CPU time of all the command's processes, with wall time only as a
//! backstop for one that sleeps or blocks ([`cputime`]: the verdict does not depend on
//! the machine's load), which kills the whole process group, a new network namespace with
//! only its loopback up ([`netns`]) and a mount namespace with a private `/dev/shm`
//! ([`mounts`]) when the kernel allows them (root), Landlock confinement ([`confine`]:
//! what it may write and, for an environment episode's commands, [`Reads::Only`], what
//! it may read), a pid namespace of its own for those commands ([`pidns`]), and a cap
//! on captured output. [`Profile`] describes all of that (what can change an outcome) from the same
//! values, for the outcome cache.
//!
//! It knows nothing about tasks or families: callers hand it a snapshot and an argv.
//! It is the jail only: running pytest in it (runner, outcome cache, test selection,
//! fork servers, the venv) is [`crate::pytest`], which this module never imports.

pub mod confine;
pub mod cputime;
pub(crate) mod mounts;
pub(crate) mod netns;
pub(crate) mod pidns;
mod probe;

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::snapshot::{self, Snapshot};
pub use confine::Reads;
pub(crate) use cputime::kill_group;

/// Resource limits for one run, and what it may read.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The CPU time all the command's processes together may use before it is killed
    /// and reported timed out; wall time (less the time it waited for a CPU) stops it at
    /// [`cputime::WALL_BACKSTOP_FACTOR`] times this ([`cputime`]).
    pub time_limit: Duration,
    pub address_space_bytes: u64,
    pub cpu_seconds: u64,
    pub file_size_bytes: u64,
    pub open_files: u64,
    /// Processes (and threads) the command may have at once.
    pub max_processes: u64,
    pub output_cap_bytes: usize,
    /// What the command may read besides its sandbox (where Landlock is enforced).
    pub reads: Reads,
    /// Whether it gets a network namespace of its own (where the host allows one).
    pub network: Network,
    /// A wall-clock limit on top of the CPU-time one: past it the command's process
    /// group is killed and it is reported timed out (an agent waiting on a model API
    /// uses little CPU). `None` for test runs, whose verdict must not depend on load.
    pub wall_limit: Option<Duration>,
}

/// The network a sandboxed command gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Network {
    /// A network namespace of its own with only its own loopback up: nothing on the
    /// host, its loopback included, nor the outside is reachable ([`netns`]).
    #[default]
    None,
    /// The host's network: loopback, the host's listeners and the internet.
    Host,
}

impl Limits {
    /// Limits for a test run with the given time limit, reading anywhere. RLIMIT_CPU
    /// (per process) is twice the limit: the kernel's last resort above the budget.
    pub fn for_tests(time_limit: Duration) -> Self {
        Limits {
            time_limit,
            address_space_bytes: 4 << 30,
            cpu_seconds: time_limit.as_secs().saturating_mul(2).max(10),
            file_size_bytes: 256 << 20,
            open_files: 1024,
            max_processes: 256,
            output_cap_bytes: 256 << 10,
            reads: Reads::Anywhere,
            network: Network::None,
            wall_limit: None,
        }
    }

    /// Limits for an agent command (`eval --agent-cmd`): `timeout` of wall time, and the
    /// room an agent program needs that a test run does not (a JIT's address space,
    /// more processes and open files, bigger files). Its CPU budget is the wall time on
    /// every core, so only the wall clock stops it; `reads` and `network` are the
    /// caller's policy.
    pub fn for_agent(timeout: Duration, reads: Reads, network: Network) -> Self {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get()) as u32;
        let cpu_budget = timeout.saturating_mul(cores + 1);
        Limits {
            time_limit: cpu_budget,
            address_space_bytes: 64 << 30,
            cpu_seconds: cpu_budget.as_secs().saturating_mul(2).max(10),
            file_size_bytes: 1 << 30,
            open_files: 4096,
            max_processes: 1024,
            output_cap_bytes: 8 << 20,
            reads,
            network,
            wall_limit: Some(timeout),
        }
    }
}

impl Limits {
    /// The rlimits a command gets between fork and exec: (resource, name, value).
    fn rlimits(&self) -> [(RlimitResource, &'static str, u64); 6] {
        [
            (libc::RLIMIT_AS, "address-space", self.address_space_bytes),
            (libc::RLIMIT_CPU, "cpu-seconds", self.cpu_seconds),
            (libc::RLIMIT_FSIZE, "file-size", self.file_size_bytes),
            (libc::RLIMIT_NOFILE, "open-files", self.open_files),
            (libc::RLIMIT_NPROC, "processes", self.max_processes),
            (libc::RLIMIT_CORE, "core-size", 0),
        ]
    }
}

/// The resource type `setrlimit` takes on this target.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
type RlimitResource = libc::__rlimit_resource_t;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
type RlimitResource = libc::c_int;

/// Everything the sandbox decides about a command besides its tree, its argv and the
/// caller's variables: the limits it sets, the variables it fixes, and the confinement
/// this host gives it (network namespace, pids cgroup, Landlock rules). Each of these can
/// change a test's outcome, so the outcome cache keys on the profile. It is read from
/// the same values [`sandboxed_command`] applies ([`Limits::rlimits`], [`fixed_env`],
/// [`confine::confinement_profile`]), never from a copy of them.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Profile {
    /// Every rlimit, by name.
    pub(crate) rlimits: BTreeMap<&'static str, u64>,
    /// The time limit. It is serialised under the name it had when a wall clock
    /// measured it: the limit is the same number, what it bounds is now the command's CPU
    /// time ([`cputime`]), so outcomes cached under it keep their keys.
    #[serde(rename = "wall_timeout_ms")]
    pub(crate) time_limit_ms: u128,
    pub(crate) output_cap_bytes: usize,
    /// The variables every command gets (`HOME`, `TMPDIR` and `XDG_CACHE_HOME` aside:
    /// they are folders of each run's own sandbox).
    pub(crate) env: BTreeMap<&'static str, String>,
    /// Whether commands run in a network namespace of their own (no network).
    pub(crate) network_namespace: bool,
    /// Whether that namespace's loopback is up (127.0.0.1 works inside it).
    pub(crate) loopback: bool,
    /// The size of the private `/dev/shm` commands get, where they get one.
    pub(crate) private_shm: Option<&'static str>,
    /// Whether a pids cgroup caps their processes (and collects what they leave).
    pub(crate) pids_cgroup: bool,
    /// The Landlock rules, where the kernel enforces them.
    pub(crate) landlock: Option<Vec<String>>,
}

impl Profile {
    /// The profile of a command run with `limits` on this host.
    pub fn of(limits: &Limits) -> Profile {
        Profile {
            rlimits: limits.rlimits().iter().map(|(_, name, value)| (*name, *value)).collect(),
            time_limit_ms: limits.time_limit.as_millis(),
            output_cap_bytes: limits.output_cap_bytes,
            env: fixed_env().into_iter().collect(),
            network_namespace: limits.network == Network::None && network_namespace_available(),
            loopback: limits.network == Network::None && network_namespace_available(),
            private_shm: mounts::available().then_some(mounts::SHM_SIZE),
            pids_cgroup: confine::pids_cgroup_available(),
            landlock: confine::confinement_profile(&limits.reads),
        }
    }
}

/// What happened to one sandboxed command.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// Exit code, `None` when killed by a signal or the time limit.
    pub exit_code: Option<i32>,
    /// The command went past its time limit ([`cputime`]): killed there, or ended
    /// having used its whole CPU budget.
    pub timed_out: bool,
    /// Combined stdout and stderr, truncated to the output cap.
    pub output: String,
    pub truncated: bool,
    pub duration: Duration,
    /// CPU time all its processes used, as its time limit counts it ([`cputime`]).
    pub cpu: Duration,
}

/// A command to run inside a fresh copy of `tree`.
pub struct RunRequest<'a> {
    pub tree: &'a Snapshot,
    pub argv: &'a [String],
    /// Extra environment on top of the scrubbed base.
    pub env: &'a BTreeMap<String, String>,
    pub limits: &'a Limits,
}

/// Variables passed through from the caller's environment when set.
const PASSED_THROUGH: &[&str] = &["LANG", "LC_ALL", "TZ"];

/// Prefix of a sandbox folder in the system's temporary folder (followed by
/// [`crate::leftovers::owner_tag`]).
pub(crate) const SANDBOX_PREFIX: &str = "mergeforge-sandbox-";

/// Materialises the tree in a private temporary directory and runs the command there.
pub fn run_in_fresh_tree(request: &RunRequest) -> Result<RunOutput> {
    let (sandbox, work) = materialised_sandbox(request.tree)?;
    run_in_dir(&work, sandbox.path(), request.argv, request.env, request.limits)
}

/// A new sandbox root (named for [`crate::leftovers`], removed when dropped) holding a
/// fresh copy of `tree` in its `work` folder, which is returned with it.
pub(crate) fn materialised_sandbox(tree: &Snapshot) -> Result<(tempfile::TempDir, PathBuf)> {
    let sandbox = tempfile::Builder::new()
        .prefix(&format!("{SANDBOX_PREFIX}{}-", crate::leftovers::owner_tag()))
        .tempdir()
        .context("creating a sandbox directory")?;
    let work = sandbox.path().join("work");
    std::fs::create_dir_all(&work)?;
    snapshot::materialise(tree, &work)?;
    Ok((sandbox, work))
}

/// Runs `argv` with `work` as the current directory; `sandbox_root` holds `home` and `tmp`.
pub(crate) fn run_in_dir(
    work: &Path,
    sandbox_root: &Path,
    argv: &[String],
    extra_env: &BTreeMap<String, String>,
    limits: &Limits,
) -> Result<RunOutput> {
    let run = run_split(work, sandbox_root, argv, extra_env, limits)?;
    let SplitOutput { exit_code, timed_out, mut stdout, stderr, truncated, duration, cpu } = run;
    stdout.push_str(&stderr);
    Ok(RunOutput { exit_code, timed_out, output: stdout, truncated, duration, cpu })
}

/// What happened to one sandboxed command, its two output streams apart.
#[derive(Debug, Clone)]
pub(crate) struct SplitOutput {
    /// Exit code, `None` when killed by a signal or a time limit.
    pub(crate) exit_code: Option<i32>,
    /// It went past its time limit, CPU ([`cputime`]) or wall ([`Limits::wall_limit`]).
    pub(crate) timed_out: bool,
    /// Each stream truncated to the output cap.
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    pub(crate) truncated: bool,
    pub(crate) duration: Duration,
    pub(crate) cpu: Duration,
}

/// [`run_in_dir`] with stdout and stderr kept apart.
pub(crate) fn run_split(
    work: &Path,
    sandbox_root: &Path,
    argv: &[String],
    extra_env: &BTreeMap<String, String>,
    limits: &Limits,
) -> Result<SplitOutput> {
    let Sandboxed { mut command, cgroup } = sandboxed_command(work, sandbox_root, argv, extra_env, limits)?;
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().with_context(|| format!("starting {}", argv[0]))?;
    let pid = child.id() as i32;
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let cap = limits.output_cap_bytes;
    let out_reader = std::thread::spawn(move || read_capped(stdout, cap));
    let err_reader = std::thread::spawn(move || read_capped(stderr, cap));

    // A fresh cgroup: nothing ran in it before the command.
    let since = cputime::Usage::default();
    let meter = cputime::CpuMeter::new(cgroup.as_ref().and_then(|c| c.cpu_cgroup()), since, pid);
    let deadline = cputime::Deadline { limit: limits.time_limit, wall: limits.wall_limit };
    let ended = cputime::wait_for(pid, &meter, deadline, started)?;
    let cpu = meter.total_cpu(ended.reaped_cpu);
    let timed_out = ended.killed || cpu >= limits.time_limit;
    // Whatever the test left behind goes too: its process group, and every process in
    // its cgroup (even those that started a new session).
    kill_group(pid);
    if let Some(cgroup) = &cgroup {
        cgroup.kill_all();
    }
    let duration = started.elapsed();
    let (stdout, out_truncated) = out_reader.join().unwrap_or_default();
    let (stderr, err_truncated) = err_reader.join().unwrap_or_default();
    let exit_code = if timed_out { None } else { ended.status.code() };
    Ok(SplitOutput { exit_code, timed_out, stdout, stderr, truncated: out_truncated || err_truncated, duration, cpu })
}

/// A command set up to run sandboxed, and the cgroups it will join (if any).
pub(crate) struct Sandboxed {
    pub(crate) command: Command,
    pub(crate) cgroup: Option<confine::CommandCgroups>,
}

/// `argv` in `work` with the scrubbed environment (plus `extra_env`), `HOME` and `TMPDIR`
/// under `sandbox_root`, a process group of its own, and every limit applied between
/// fork and exec. Standard streams are left to the caller.
pub(crate) fn sandboxed_command(
    work: &Path,
    sandbox_root: &Path,
    argv: &[String],
    extra_env: &BTreeMap<String, String>,
    limits: &Limits,
) -> Result<Sandboxed> {
    let (program, args) = argv.split_first().context("empty command")?;
    let home = sandbox_root.join("home");
    let tmp = sandbox_root.join("tmp");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&tmp)?;

    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(work)
        .env_clear()
        .envs(fixed_env())
        .env("HOME", &home)
        .env("TMPDIR", &tmp)
        .env("XDG_CACHE_HOME", tmp.join("cache"))
        .process_group(0);
    for (key, value) in extra_env {
        command.env(key, value);
    }
    let cgroup = confine::CommandCgroups::create(limits.max_processes);
    let own_mounts = mounts::available();
    let own_pids = own_mounts && matches!(limits.reads, Reads::Only(_)) && pidns::available();
    let confinement = confine::confinement(sandbox_root, &limits.reads, own_pids, own_mounts);
    let procs = cgroup.as_ref().map(|c| c.procs_paths()).unwrap_or_default();
    let network = limits.network == Network::None && network_namespace_available();
    let namespaces = Namespaces { network, mounts: own_mounts, pids: own_pids };
    apply_limits_after_fork(&mut command, limits, procs, namespaces, confinement);
    Ok(Sandboxed { command, cgroup })
}

/// The variables every sandboxed command starts with (before the run's own folders and
/// the caller's variables): a scrubbed `PATH`, Python's determinism switches, and the
/// [`PASSED_THROUGH`] variables this process has.
fn fixed_env() -> Vec<(&'static str, String)> {
    let mut env = vec![
        ("PATH", "/usr/local/bin:/usr/bin:/bin".to_string()),
        ("PYTHONDONTWRITEBYTECODE", "1".to_string()),
        ("PYTHONHASHSEED", "0".to_string()),
        ("PYTHONUNBUFFERED", "1".to_string()),
    ];
    for name in PASSED_THROUGH {
        if let Ok(value) = std::env::var(name) {
            env.push((name, value));
        }
    }
    env
}

pub(crate) fn read_capped<R: Read>(source: Option<R>, cap: usize) -> (String, bool) {
    let Some(mut source) = source else {
        return (String::new(), false);
    };
    let mut capped = HeadAndTail::new(cap);
    let mut buffer = [0u8; 16 * 1024];
    loop {
        match source.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => capped.push(&buffer[..n]),
        }
    }
    capped.finish()
}

/// A capped copy of a stream that keeps its first and its last half: what a test run
/// says last (pytest's summary of failing test ids) survives thousands of tracebacks.
struct HeadAndTail {
    head: Vec<u8>,
    head_cap: usize,
    tail: std::collections::VecDeque<u8>,
    tail_cap: usize,
    cut: u64,
}

impl HeadAndTail {
    fn new(cap: usize) -> Self {
        let head_cap = cap / 2;
        HeadAndTail {
            head: Vec::new(),
            head_cap,
            tail: std::collections::VecDeque::new(),
            tail_cap: cap - head_cap,
            cut: 0,
        }
    }

    fn push(&mut self, mut data: &[u8]) {
        let room = self.head_cap.saturating_sub(self.head.len());
        let into_head = room.min(data.len());
        self.head.extend_from_slice(&data[..into_head]);
        data = &data[into_head..];
        if data.len() > self.tail_cap {
            self.cut += (self.tail.len() + data.len() - self.tail_cap) as u64;
            self.tail.clear();
            data = &data[data.len() - self.tail_cap..];
        } else {
            let excess = (self.tail.len() + data.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..excess);
            self.cut += excess as u64;
        }
        self.tail.extend(data);
    }

    /// The kept text (at most the cap, a marker line included) and whether bytes were cut.
    fn finish(self) -> (String, bool) {
        let mut kept = self.head;
        let mut tail: Vec<u8> = self.tail.into();
        if self.cut > 0 {
            let marker = format!("\n[... output cut: {} bytes ...]\n", self.cut);
            let drop = marker.len().min(tail.len());
            tail.drain(..drop);
            kept.extend_from_slice(&marker.as_bytes()[..marker.len().min(self.tail_cap)]);
        }
        kept.extend_from_slice(&tail);
        (without_colours(String::from_utf8_lossy(&kept).into_owned()), self.cut > 0)
    }
}

/// `text` without terminal escape sequences (`ESC [ … m`): a project whose pytest
/// settings say `--color=yes` (humanize's) colours its summary, whose `FAILED <id>` lines
/// and counts are then read as plain text.
fn without_colours(text: String) -> String {
    if !text.contains('\x1b') {
        return text;
    }
    let mut plain = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, up to the final byte (`@` to `~`).
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            plain.push(c);
        }
    }
    plain
}

/// The namespaces a command enters (each only where this host allows it).
#[derive(Clone, Copy)]
struct Namespaces {
    /// Network: only its loopback ([`netns`]).
    network: bool,
    /// Mount: a private `/dev/shm` ([`mounts`]).
    mounts: bool,
    /// Pid, with its own `/proc` ([`pidns`]); needs `mounts`.
    pids: bool,
}

/// Sets rlimits, joins the cgroups, enters the [`Namespaces`] and applies the
/// Landlock confinement (the rules on what the child mounted added first), in the
/// child between fork and exec. Everything the closure touches was prepared before the
/// fork, and it only makes async-signal-safe system calls: no allocation, no locks.
fn apply_limits_after_fork(
    command: &mut Command,
    limits: &Limits,
    cgroup_procs: Vec<std::ffi::CString>,
    namespaces: Namespaces,
    confinement: Option<confine::Confinement>,
) {
    let rlimits = limits.rlimits().map(|(resource, _, value)| (resource, value));
    let mut confinement = confinement;
    // SAFETY: see above; the closure runs in the forked child only.
    unsafe {
        command.pre_exec(move || {
            for (resource, value) in rlimits {
                let limit = libc::rlimit { rlim_cur: value, rlim_max: value };
                if libc::setrlimit(resource, &limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            for procs in &cgroup_procs {
                confine::join_cgroup(procs)?;
            }
            if namespaces.network {
                netns::enter()?;
            }
            if namespaces.mounts {
                mounts::enter()?;
            }
            if namespaces.pids {
                pidns::enter()?;
            }
            if let Some(confine::Confinement { ruleset, mounted }) = confinement.take() {
                if let Some(mounted) = &mounted {
                    mounted.add()?;
                }
                ruleset.restrict_self().map_err(|_| std::io::Error::other("landlock restrict_self failed"))?;
            }
            Ok(())
        });
    }
}

/// Whether runs get their own network namespace, with only a loopback ([`netns`]).
pub fn network_namespace_available() -> bool {
    netns::available()
}

#[cfg(test)]
mod tests {
    use super::{without_colours, HeadAndTail};

    #[test]
    fn colours_are_left_out() {
        let coloured = "\x1b[31mFAILED\x1b[0m tests/test_a.py::test_x - boom\n\x1b[31m\x1b[1m1 failed\x1b[0m in 0.1s\n";
        assert_eq!(without_colours(coloured.to_string()), "FAILED tests/test_a.py::test_x - boom\n1 failed in 0.1s\n");
        assert_eq!(without_colours("plain [1m]\n".to_string()), "plain [1m]\n");
    }

    #[test]
    fn long_output_keeps_its_head_and_its_last_lines() {
        let mut capped = HeadAndTail::new(200);
        capped.push(b"collected 5000 items\n");
        for i in 0..5000 {
            capped.push(format!("traceback line {i}\n").as_bytes());
        }
        capped.push(b"FAILED tests/test_x.py::test_last - boom\n");
        let (text, truncated) = capped.finish();
        assert!(truncated);
        assert_eq!(text.len(), 200);
        assert!(text.starts_with("collected 5000 items\n"), "{text}");
        assert!(text.ends_with("FAILED tests/test_x.py::test_last - boom\n"), "{text}");
        assert!(text.contains("[... output cut: "), "{text}");
    }

    #[test]
    fn short_output_is_kept_whole() {
        let mut capped = HeadAndTail::new(200);
        capped.push(b"a\n");
        capped.push(b"b\n");
        assert_eq!(capped.finish(), ("a\nb\n".to_string(), false));
    }
}
