//! `mergeforge serve`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::env::reward::RewardWeights;
use crate::env::server::{self, ServeOptions};
use crate::env::template::ResetPath;
use crate::env::{EnvConfig, Environment};

/// Serve a dataset as an OpenEnv-compatible environment over HTTP, WebSocket and MCP.
///
/// Each reset gives the episode a real git repository in the middle of the task's merge
/// (ours checked out, theirs merged, conflict markers in the files) in a fresh private
/// directory: a copy (reflink where the file system can) of the task's repository,
/// prepared once on the task's first reset. Agents resolve it with whole-file resolutions ({"file", "resolution"}) or
/// tools (write_file, read_file, edit_file, run, run_tests, finish). A graded run decides: gold's test files
/// and pytest configuration restored over a copy of the tree, in the sandbox, every
/// test that passes on gold passing; the reward pays for solving (--reward). Level and
/// family stay hidden unless --reveal-task-info. WS /ws gives one isolated episode per
/// connection; POST /mcp one per MCP session (JSON-RPC, Mcp-Session-Id header, the tools
/// plus reset); HTTP /reset, /step and /state share one default session. The first line on stdout is the bound
/// address, e.g. `listening on http://127.0.0.1:8000`.
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub(crate) struct ServeArgs {
    /// Dataset version directory (holds manifest.json).
    #[arg(long, value_name = "DIR", default_value = "generated/mergeforge-embedded/1.0.0")]
    pub(crate) dataset: PathBuf,

    /// Address to listen on; port 0 picks a free port.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:8000")]
    pub(crate) addr: SocketAddr,

    /// Allow a non-loopback --addr. The run tool executes agent commands on this
    /// machine (sandboxed, without network where the kernel allows): expose it knowingly.
    #[arg(long)]
    pub(crate) public: bool,

    /// Sessions at once (WebSocket connections and MCP sessions together); further ones
    /// get CAPACITY_REACHED.
    #[arg(long, value_name = "N", default_value_t = 64)]
    pub(crate) max_sessions: usize,

    /// Name each task's level and family in observations and the state (off by
    /// default: the label tells an agent how the task was made; for demos and debugging).
    #[arg(long)]
    pub(crate) reveal_task_info: bool,

    #[command(flatten)]
    pub(crate) episode: EpisodeArgs,
}

/// The reward an environment pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum RewardKind {
    /// Weighted components; an episode that does not solve its task earns at most a
    /// quarter of the maximum.
    Dense,
    /// 1 for solving the task, else 0.
    Binary,
}

/// Episode flags shared by `serve` and `eval`.
#[derive(Debug, Args)]
pub(crate) struct EpisodeArgs {
    /// Steps per episode. Every action counts, tool actions included: 10 suits
    /// whole-file resolutions (one step per file); give tool-using agents more (e.g. 50).
    #[arg(long, value_name = "N", default_value_t = 10)]
    pub(crate) max_steps: usize,

    /// The reward: `dense` (weighted components, see --reward-config) or `binary` (1 when
    /// the graded tests pass with no conflict marker left, else 0).
    #[arg(long, value_name = "KIND", value_enum, default_value_t = RewardKind::Dense)]
    pub(crate) reward: RewardKind,

    /// Dense reward weights (TOML: markers_removed, syntax_valid, syntax_invalid,
    /// tests_pass). Missing keys keep the defaults 0.10, 0.05, -0.10, 1.00.
    #[arg(long, value_name = "FILE")]
    pub(crate) reward_config: Option<PathBuf>,

    /// Largest `resolution` or `content` accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    pub(crate) max_resolution_bytes: usize,

    /// Wall-clock limit of one `run` command, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub(crate) run_timeout: u64,

    /// Do not offer the run tool (agents then only read, edit and resolve files).
    #[arg(long)]
    pub(crate) no_run: bool,

    /// Offer the run tool even where Landlock is not enforced (old kernel, or
    /// MERGEFORGE_LANDLOCK=off): its commands could then read the dataset's solutions and
    /// other episodes. Without this flag such a host refuses every `run`.
    #[arg(long)]
    pub(crate) allow_unconfined_run: bool,

    /// Where episode directories are created. Default: the system temp directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) work_dir: Option<PathBuf>,

    /// How a reset makes the episode's repository: `template` (a copy of the task's
    /// repository prepared on its first reset) or `clone` (the previous path: git fetch,
    /// checkout and merge on every reset), for `bench env`'s comparison.
    #[arg(long, value_name = "PATH", value_enum, default_value_t = ResetPath::Template, hide = true)]
    pub(crate) reset_path: ResetPath,
}

impl EpisodeArgs {
    /// The episode configuration, with episodes under `work_dir`.
    pub(crate) fn config(&self, work_dir: PathBuf) -> Result<EnvConfig> {
        if self.max_steps == 0 {
            bail!("--max-steps must be at least 1");
        }
        let weights = match (self.reward, &self.reward_config) {
            (RewardKind::Binary, Some(_)) => {
                bail!("--reward-config sets dense weights: it does not combine with --reward binary")
            }
            (RewardKind::Binary, None) => RewardWeights::binary(),
            (RewardKind::Dense, Some(path)) => RewardWeights::load(path)?,
            (RewardKind::Dense, None) => RewardWeights::default(),
        };
        Ok(EnvConfig {
            max_steps: self.max_steps,
            max_resolution_bytes: self.max_resolution_bytes,
            run_timeout: Duration::from_secs(self.run_timeout.max(1)),
            allow_run: !self.no_run,
            allow_unconfined_run: self.allow_unconfined_run,
            weights,
            reveal_task_info: false,
            work_dir,
            reset_path: self.reset_path,
        })
    }

    /// A private directory for this process's episodes, removed when dropped.
    pub(crate) fn run_dir(&self, prefix: &str) -> Result<tempfile::TempDir> {
        let base = self.work_dir.clone().unwrap_or_else(std::env::temp_dir);
        std::fs::create_dir_all(&base).with_context(|| format!("{}: cannot create", base.display()))?;
        tempfile::Builder::new()
            .prefix(prefix)
            .tempdir_in(&base)
            .with_context(|| format!("{}: cannot create a work directory", base.display()))
    }
}

pub(crate) fn run(args: ServeArgs) -> Result<ExitCode> {
    if !args.addr.ip().is_loopback() && !args.public {
        bail!(
            "{} is not a loopback address: add --public to expose the environment (its run tool executes commands)",
            args.addr
        );
    }
    if args.max_sessions == 0 {
        bail!("--max-sessions must be at least 1");
    }
    let run_dir = args.episode.run_dir("mergeforge-serve-")?;
    let config =
        EnvConfig { reveal_task_info: args.reveal_task_info, ..args.episode.config(run_dir.path().to_path_buf())? };
    let max_message_bytes = config.max_resolution_bytes.saturating_mul(2).saturating_add(64 << 20).max(256 << 20);
    let env = Arc::new(Environment::new(&args.dataset, config)?);
    let options = ServeOptions { addr: args.addr, max_sessions: args.max_sessions, max_message_bytes };
    let runtime =
        tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")?;
    let tasks = env.tasks.tasks.len();
    let served = runtime.block_on(server::serve(
        env,
        options,
        |bound| {
            println!("listening on http://{bound} (WebSocket ws://{bound}/ws, {tasks} tasks)");
            let _ = std::io::Write::flush(&mut std::io::stdout());
        },
        shutdown_signal(),
    ));
    // Running steps get a moment to finish; then the episode directories go.
    runtime.shutdown_timeout(Duration::from_secs(5));
    drop(run_dir);
    served?;
    Ok(ExitCode::SUCCESS)
}

/// Completes on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
    eprintln!("mergeforge serve: shutting down");
}
