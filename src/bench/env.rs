//! `mergeforge bench env`: how fast a served environment resets, measured side by side
//! on each reset path ([`ResetPath`]: the template copies, then the previous clone path)
//! with the official OpenEnv Python client, the code an agent uses.
//!
//! Per path, one `mergeforge serve` (this executable, on loopback, its own work
//! directory) and one run of `env_client.py` (embedded here; a venv with `openenv-core`
//! from PyPI): a first reset of every task (on the template path, the one that prepares
//! it), then sequential resets on one session, then `sessions` sessions resetting at
//! the same moment, each then playing its task's gold episode, with a check that no
//! session sees another's edits or state. The server's peak resident set (`VmHWM` of
//! `/proc/<pid>/status`, the server process alone) is read before it is stopped.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::env::template::ResetPath;
use crate::pytest::venv::{ensure_venv, user_cache_dir};

/// The client script, written to a scratch folder for each bench.
const CLIENT: &str = include_str!("env_client.py");

/// The paths measured, in order: the new one first, so cold file caches cost it, not
/// the baseline it is compared to.
pub(crate) const PATHS: [ResetPath; 2] = [ResetPath::Template, ResetPath::Clone];

/// What `bench env` measures.
#[derive(Debug, Clone)]
pub(crate) struct EnvBenchOptions {
    pub(crate) dataset: PathBuf,
    /// Sequential resets timed after the first reset of every task.
    pub(crate) resets: usize,
    /// Sessions resetting at once (also the server's `--max-sessions`).
    pub(crate) sessions: usize,
    /// Only the dataset's first tasks (by id), if set.
    pub(crate) tasks: Option<usize>,
    /// Where the servers' work directories go (default: the system temp directory).
    pub(crate) work_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct EnvBenchReport {
    pub(crate) dataset: String,
    pub(crate) tasks: usize,
    pub(crate) sessions: usize,
    pub(crate) resets: usize,
    /// The client and its version.
    pub(crate) client: String,
    /// Where the servers' work directories were.
    pub(crate) work_dir: String,
    /// Whether the work directory's file system takes reflinks (else episode copies
    /// are plain copies).
    pub(crate) reflinks: bool,
    /// 1-minute load average before the first and after the last run.
    pub(crate) load_before: f64,
    pub(crate) load_after: f64,
    /// One run per path of [`PATHS`].
    pub(crate) paths: Vec<PathRun>,
    /// Clone path ÷ template path (`> 1`: the template path is faster or smaller).
    pub(crate) ratios: Ratios,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct PathRun {
    pub(crate) reset_path: ResetPath,
    /// The first reset of every task.
    pub(crate) first: Latency,
    pub(crate) sequential: Latency,
    /// The `sessions` resets sent at the same moment.
    pub(crate) concurrent: Latency,
    /// Sessions whose gold episode ended solved.
    pub(crate) solved: usize,
    /// Sessions that saw another session's edit or state.
    pub(crate) crosstalk: usize,
    /// Errors, one per failed session.
    pub(crate) errors: Vec<String>,
    /// Peak resident set of the server process, KiB.
    pub(crate) server_peak_rss_kib: u64,
}

/// Latencies as the client saw them, in milliseconds (nearest-rank percentiles).
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Latency {
    pub(crate) count: usize,
    pub(crate) p50_ms: f64,
    pub(crate) p95_ms: f64,
    pub(crate) max_ms: f64,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub(crate) struct Ratios {
    pub(crate) sequential_p50: f64,
    pub(crate) sequential_p95: f64,
    pub(crate) concurrent_p50: f64,
    pub(crate) concurrent_p95: f64,
    pub(crate) server_peak_rss: f64,
}

/// The client's JSON line.
#[derive(Debug, Deserialize)]
struct ClientRun {
    client: String,
    cold_s: Vec<f64>,
    sequential_s: Vec<f64>,
    sessions: Vec<SessionRun>,
}

#[derive(Debug, Deserialize)]
struct SessionRun {
    task: String,
    solved: bool,
    crosstalk: bool,
    error: Option<String>,
    reset_s: Option<f64>,
}

/// Runs the bench; progress lines go to stderr.
pub(crate) fn run(options: &EnvBenchOptions) -> Result<EnvBenchReport> {
    if options.sessions == 0 || options.resets == 0 {
        bail!("--sessions and --resets must be at least 1");
    }
    let all = crate::env::dataset::TaskSet::load(&options.dataset)?.tasks.len();
    let tasks = options.tasks.map_or(all, |n| n.clamp(1, all));
    let python = ensure_venv(&user_cache_dir(), &["openenv-core".into()])?.interpreter;
    let parent = options.work_dir.clone().unwrap_or_else(std::env::temp_dir);
    std::fs::create_dir_all(&parent).with_context(|| format!("{}: cannot create", parent.display()))?;
    let scratch = tempfile::Builder::new().prefix("mergeforge-bench-env-").tempdir_in(&parent)?;
    let script = scratch.path().join("env_client.py");
    std::fs::write(&script, CLIENT)?;
    let load_before = load_average();
    let mut paths = Vec::new();
    let mut client = String::new();
    for path in PATHS {
        log::info!("bench env: serve --reset-path {} ...", path.name());
        let work = scratch.path().join(path.name());
        std::fs::create_dir(&work)?;
        let (run, name) = run_path(options, path, &python, &script, &work)?;
        log::info!(
            "bench env: {}: sequential reset p50 {:.1} ms, {} at once p50 {:.1} ms, {} of {} solved",
            path.name(),
            run.sequential.p50_ms,
            options.sessions,
            run.concurrent.p50_ms,
            run.solved,
            options.sessions
        );
        client = name;
        paths.push(run);
    }
    let ratio = |f: fn(&PathRun) -> f64| match (paths.first(), paths.get(1)) {
        (Some(new), Some(old)) if f(new) > 0.0 => f(old) / f(new),
        _ => 0.0,
    };
    let ratios = Ratios {
        sequential_p50: ratio(|r| r.sequential.p50_ms),
        sequential_p95: ratio(|r| r.sequential.p95_ms),
        concurrent_p50: ratio(|r| r.concurrent.p50_ms),
        concurrent_p95: ratio(|r| r.concurrent.p95_ms),
        server_peak_rss: ratio(|r| r.server_peak_rss_kib as f64),
    };
    Ok(EnvBenchReport {
        dataset: options.dataset.display().to_string(),
        tasks,
        sessions: options.sessions,
        resets: options.resets,
        client,
        work_dir: parent.display().to_string(),
        reflinks: reflinks_work(scratch.path()),
        load_before,
        load_after: load_average(),
        paths,
        ratios,
    })
}

fn run_path(
    options: &EnvBenchOptions,
    path: ResetPath,
    python: &Path,
    script: &Path,
    work: &Path,
) -> Result<(PathRun, String)> {
    let mut server = Server::start(options, path, work)?;
    let output = Command::new(python)
        .arg(script)
        .arg(format!("http://{}", server.addr))
        .arg(&options.dataset)
        .arg(options.resets.to_string())
        .arg(options.sessions.to_string())
        .arg(options.tasks.unwrap_or(0).to_string())
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stderr(Stdio::inherit())
        .output()
        .context("running the OpenEnv client")?;
    let peak = server.peak_rss_kib();
    server.stop();
    if !output.status.success() {
        bail!("the OpenEnv client failed on the {} path ({})", path.name(), output.status);
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().last().unwrap_or("");
    let client: ClientRun = serde_json::from_str(line).with_context(|| format!("the client's report: {line:?}"))?;
    let resets: Vec<f64> = client.sessions.iter().filter_map(|s| s.reset_s).collect();
    let errors = client.sessions.iter().filter_map(|s| s.error.as_ref().map(|e| format!("{}: {e}", s.task))).collect();
    let run = PathRun {
        reset_path: path,
        first: latency(&client.cold_s),
        sequential: latency(&client.sequential_s),
        concurrent: latency(&resets),
        solved: client.sessions.iter().filter(|s| s.solved).count(),
        crosstalk: client.sessions.iter().filter(|s| s.crosstalk).count(),
        errors,
        server_peak_rss_kib: peak,
    };
    Ok((run, client.client))
}

/// Nearest-rank percentiles of `seconds`, in milliseconds.
pub(crate) fn latency(seconds: &[f64]) -> Latency {
    if seconds.is_empty() {
        return Latency::default();
    }
    let mut sorted: Vec<f64> = seconds.iter().map(|s| s * 1000.0).collect();
    sorted.sort_by(f64::total_cmp);
    let rank = |q: f64| sorted[((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1];
    Latency { count: sorted.len(), p50_ms: rank(0.50), p95_ms: rank(0.95), max_ms: rank(1.0) }
}

/// A `mergeforge serve` child on a free loopback port.
struct Server {
    child: Child,
    addr: String,
    /// Kept open so that the server's stdout never breaks.
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Server {
    fn start(options: &EnvBenchOptions, path: ResetPath, work: &Path) -> Result<Server> {
        let exe = std::env::current_exe().context("locating this executable")?;
        let mut child = Command::new(exe)
            .args(["serve", "--addr", "127.0.0.1:0", "--max-steps", "50"])
            .arg("--dataset")
            .arg(&options.dataset)
            .args(["--max-sessions", &options.sessions.to_string(), "--reset-path", path.name()])
            .arg("--work-dir")
            .arg(work)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("starting mergeforge serve")?;
        let mut stdout = BufReader::new(child.stdout.take().context("the server's stdout")?);
        let mut line = String::new();
        stdout.read_line(&mut line)?;
        let Some(addr) = line.split("http://").nth(1).and_then(|rest| rest.split_whitespace().next()) else {
            let _ = child.kill();
            let _ = child.wait();
            bail!("mergeforge serve did not start: {line:?}");
        };
        Ok(Server { addr: addr.to_string(), child, _stdout: stdout })
    }

    /// `VmHWM` of the running server, KiB (0 if unreadable).
    fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }

    /// SIGTERM, then a kill after 10 s.
    #[allow(unsafe_code)] // kill(2): std's Child::kill only sends SIGKILL
    fn stop(&mut self) {
        // SAFETY: signalling our own child process.
        unsafe {
            libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM);
        }
        for _ in 0..200 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.stop();
        }
    }
}

/// Whether a reflink works in `dir` (the servers' work directories live there).
fn reflinks_work(dir: &Path) -> bool {
    let (from, to) = (dir.join("reflink-probe"), dir.join("reflink-probe-copy"));
    let works = std::fs::write(&from, b"probe").is_ok() && reflink_copy::reflink(&from, &to).is_ok();
    let _ = (std::fs::remove_file(&from), std::fs::remove_file(&to));
    works
}

fn load_average() -> f64 {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let seconds: Vec<f64> = (1..=20).map(|i| i as f64 / 1000.0).collect();
        let l = latency(&seconds);
        let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert_eq!(l.count, 20);
        assert!(near(l.p50_ms, 10.0) && near(l.p95_ms, 19.0) && near(l.max_ms, 20.0), "{l:?}");
        assert!(near(latency(&[0.005]).p95_ms, 5.0));
        assert_eq!(latency(&[]).count, 0);
    }
}
