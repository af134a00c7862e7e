//! One episode: a task materialised in its own workspace, the actions applied to it,
//! the tests run in the sandbox, and the reward paid step by step.
//!
//! A reset copies the task's template ([`super::template`]) and takes what the first
//! observation needs ([`Initial`]: unmerged paths, conflicted texts, which files parse)
//! from it, computed once per task; `--reset-path clone` materialises and reads the
//! repository afresh on every reset instead.
//!
//! After every step the working tree is scanned: conflict blocks left in the conflicted
//! files, whether every Python file parses, and a fingerprint of the whole tree. The
//! [`grader`] judges the tree (gold's tests restored over a copy of it, run in a fresh
//! sandbox with the venv's interpreter for `python`) when the conflicted files carry no
//! markers and that tree has not been judged yet, or when the agent asks (`run_tests`:
//! the verdict and the run's passed/failed test ids, markers or not; an observation that
//! pays nothing by itself). The episode ends when the task is solved (the
//! graded tests pass with no markers left), on `finish`, or after `max_steps` steps. A
//! refused action does not count as a step. The agent's own `run`s execute in its
//! repository, on its own tree, test edits included.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::action::Action;
use super::config::Settings;
use super::dataset::TaskEntry;
use super::grader::{self, TestCommand, Verdict};
use super::initial::{conflicted_texts, inspect, Initial, Parses, TreeFacts, SCAN_MAX_FILES, SCAN_MAX_FILE_BYTES};
use super::observation::{EpisodeState, Observation, StepReply, TaskInfo};
use super::protocol::EnvError;
use super::reward::{RewardComponents, RewardLedger, StepFacts};
use super::template::ResetPath;
use super::workspace::{FileText, TreeScan, Workspace};
use crate::bundle::task::ConflictKind;
use crate::sandbox::confine::landlock_available;
use crate::sandbox::{run_in_dir, Limits};
use crate::snapshot::Snapshot;

/// How much of a command's output goes into `last_output`.
const OUTPUT_CAP: usize = 64 << 10;

/// How long the last step (or reset) took, and how much of that was spent running the
/// tests or the agent's commands.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct StepTiming {
    pub(crate) total: Duration,
    pub(crate) commands: Duration,
}

impl StepTiming {
    /// The environment's own share of the step.
    pub(crate) fn overhead(&self) -> Duration {
        self.total.saturating_sub(self.commands)
    }
}

pub struct Episode {
    id: String,
    entry: Arc<TaskEntry>,
    settings: Arc<Settings>,
    workspace: Workspace,
    /// Paths git reported as unmerged at reset.
    conflicted: Vec<String>,
    /// The tree at reset (the merge as git left it): gold's tree is this with the
    /// solution's files.
    merged: Snapshot,
    ledger: RewardLedger,
    max_reward: f64,
    step_count: usize,
    done: bool,
    /// Content of the conflicted files after the previous step.
    last_conflicted: BTreeMap<String, String>,
    fingerprint: String,
    facts: TreeFacts,
    verdicts: HashMap<String, Verdict>,
    parses: Parses,
    /// Python files outside the conflicts that did not parse at reset (the substrate's
    /// own, say a deliberately broken fixture): not the agent's to fix, so never counted.
    broken_at_reset: BTreeSet<String>,
    timing: StepTiming,
}

impl Episode {
    /// Makes `entry`'s repository (a copy of its template, or materialised from the
    /// bundle with `--reset-path clone`) and returns the episode with its first
    /// observation.
    pub fn start(
        entry: Arc<TaskEntry>,
        settings: Arc<Settings>,
        episode_id: Option<String>,
    ) -> Result<(Episode, StepReply), EnvError> {
        let started = Instant::now();
        let kind = entry.task.conflict_kind;
        let (workspace, initial) = Episode::prepare(&entry, &settings)
            .map_err(|e| EnvError::execution(format!("task {}: {e:#}", entry.task.id)))?;
        let Initial { conflicted, merged, broken_at_reset, facts, last_conflicted, fingerprint, parses } = initial;
        let weights = settings.config.weights.clone();
        let mut episode = Episode {
            id: episode_id.unwrap_or_else(new_episode_id),
            entry,
            ledger: RewardLedger::new(weights.clone(), facts.blocks),
            max_reward: weights.max_reward(facts.blocks),
            settings,
            workspace,
            conflicted,
            merged,
            step_count: 0,
            done: false,
            last_conflicted,
            fingerprint,
            facts,
            verdicts: HashMap::new(),
            parses,
            broken_at_reset,
            timing: StepTiming::default(),
        };
        episode.timing = StepTiming { total: started.elapsed(), commands: Duration::ZERO };
        let note = match kind {
            ConflictKind::Semantic => format!(
                "merge of theirs into ours applied without conflict markers and is not committed; both sides changed {}; the tests decide",
                episode.conflicted.join(", ")
            ),
            _ => format!(
                "merge of theirs into ours stopped with conflicts in {}; resolve them, the tests decide",
                episode.conflicted.join(", ")
            ),
        };
        let observation = episode.observe(note, RewardComponents::default());
        Ok((episode, StepReply { observation, reward: None, done: false }))
    }

    /// Applies one action. A refused action leaves the episode as it was.
    pub fn step(&mut self, action: Action) -> Result<StepReply, EnvError> {
        if self.done {
            return Err(EnvError::validation("the episode is over: send a reset to start another"));
        }
        let started = Instant::now();
        let mut commands = Duration::ZERO;
        let mut output = self.apply(&action, &mut commands)?;
        self.step_count += 1;
        let scan = self.scan();
        self.facts = inspect(&scan, &self.conflicted, &self.broken_at_reset, &mut self.parses);
        self.fingerprint = scan.fingerprint();
        let mut verdict = self.verdicts.get(&self.fingerprint).cloned();
        // `run_tests` grades the tree even with markers left: it only reports.
        let asked = action == Action::RunTests;
        let fresh = verdict.is_none() && (!self.facts.markers_left || asked);
        if fresh {
            verdict = Some(self.run_tests(&scan, &mut commands)?);
        }
        if let Some(v) = verdict.as_ref().filter(|_| fresh || asked) {
            push_line(&mut output, &v.summary);
            if asked {
                push_line(&mut output, &test_ids(v));
            }
        }
        let solved = verdict.as_ref().is_some_and(|v| v.passed) && !self.facts.markers_left;
        self.done = solved || action == Action::Finish || self.step_count >= self.settings.config.max_steps;
        // An episode that ends with markers left is unsolved whatever the tests say:
        // they are not run, and the last observation says so.
        if self.done && verdict.is_none() {
            push_line(&mut output, "tests not run: conflict markers remain, so the task is not solved");
        }
        let components = self.ledger.pay(&StepFacts {
            blocks: self.facts.blocks,
            broken_python: self.facts.broken_python,
            all_python_parses: self.facts.all_python_parses,
            solved: verdict.as_ref().is_some_and(|v| v.passed) && !self.facts.markers_left,
        });
        self.last_conflicted = conflicted_texts(&scan, &self.conflicted);
        self.timing = StepTiming { total: started.elapsed(), commands };
        let observation = self.observe(output, components);
        Ok(StepReply { reward: Some(components.total()), done: self.done, observation })
    }

    /// The episode's repository and what the reset observes of it.
    fn prepare(entry: &TaskEntry, settings: &Settings) -> anyhow::Result<(Workspace, Initial)> {
        let work_dir = &settings.config.work_dir;
        match settings.config.reset_path {
            ResetPath::Clone => {
                let workspace = Workspace::materialise(&entry.bundle, work_dir, entry.task.conflict_kind)?;
                let initial = Initial::of(&workspace, entry)?;
                Ok((workspace, initial))
            }
            ResetPath::Template => {
                let template = settings
                    .templates
                    .get(entry, |workspace| Initial::of(workspace, entry).map(Initial::without_tree))?;
                let workspace = settings.templates.copy(&template, work_dir)?;
                let mut initial = template.initial.clone();
                // The tree at reset serves gold's first graded run only: once the task's
                // gold tests are cached (they stay), it is never read.
                if entry.gold.cached().is_none() {
                    initial.merged = workspace.scan(SCAN_MAX_FILES, SCAN_MAX_FILE_BYTES).snapshot();
                }
                Ok((workspace, initial))
            }
        }
    }

    pub fn state(&self) -> EpisodeState {
        let task = self.task_info();
        EpisodeState {
            episode_id: Some(self.id.clone()),
            step_count: self.step_count,
            task_id: Some(task.id),
            level: task.level,
            family: task.family,
            done: self.done,
            total_reward: self.ledger.total(),
            max_reward: Some(self.max_reward),
            max_steps: self.settings.config.max_steps,
            conflict_count: Some(self.facts.blocks),
        }
    }

    pub fn task(&self) -> &TaskEntry {
        &self.entry
    }

    /// Timing of the last step (or of the reset, before any step).
    pub(crate) fn timing(&self) -> StepTiming {
        self.timing
    }

    /// The repository on disk (for tests and tools that inspect an episode).
    pub fn repo(&self) -> &std::path::Path {
        self.workspace.repo()
    }

    /// The episode's folder, which holds the repository, its `home` and `tmp` (the
    /// sandbox root of the commands run in the episode).
    pub(crate) fn root(&self) -> &std::path::Path {
        self.workspace.root()
    }

    /// The working tree as it is now (`.git` aside).
    pub(crate) fn tree(&self) -> Snapshot {
        self.scan().snapshot()
    }

    fn apply(&self, action: &Action, commands: &mut Duration) -> Result<String, EnvError> {
        match action {
            Action::Resolve { file, resolution } => {
                let full = self.workspace.resolve(file, true).map_err(EnvError::validation)?;
                self.workspace.write(&full, resolution).map_err(EnvError::execution)?;
                Ok(format!("wrote {file} ({} bytes)", resolution.len()))
            }
            Action::ReadFile { path, start_line, end_line } => self.read_lines(path, *start_line, *end_line),
            Action::EditFile { path, old_string, new_string } => self.edit(path, old_string, new_string),
            Action::Run { argv } => self.run_command(argv, commands),
            // The step runs the graded tests and reports them (see `step`).
            Action::RunTests => Ok(String::new()),
            Action::Finish => Ok("finished".to_string()),
        }
    }

    fn read_text(&self, path: &str, for_write: bool) -> Result<(std::path::PathBuf, Option<String>), EnvError> {
        let full = self.workspace.resolve(path, for_write).map_err(EnvError::validation)?;
        if !full.exists() {
            return Ok((full, None));
        }
        match self.workspace.read(&full).map_err(EnvError::execution)? {
            FileText::Text(text) => Ok((full, Some(text))),
            FileText::NotUtf8 => Err(EnvError::validation(format!("`{path}` is not UTF-8 text"))),
        }
    }

    fn read_lines(&self, path: &str, start: Option<usize>, end: Option<usize>) -> Result<String, EnvError> {
        let (_, text) = self.read_text(path, false)?;
        let text = text.unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let start = start.unwrap_or(1);
        let end = end.unwrap_or(lines.len()).min(lines.len());
        if start > lines.len().max(1) || end + 1 < start {
            return Err(EnvError::validation(format!(
                "read_file: lines {start}-{end} are outside `{path}` ({} lines)",
                lines.len()
            )));
        }
        let mut out = String::new();
        for (number, line) in lines.iter().enumerate().take(end).skip(start - 1) {
            out.push_str(&format!("{:>5}\t{line}\n", number + 1));
            if out.len() > OUTPUT_CAP {
                out.push_str("[output truncated: read fewer lines]\n");
                break;
            }
        }
        Ok(out)
    }

    fn edit(&self, path: &str, old: &str, new: &str) -> Result<String, EnvError> {
        let (full, text) = self.read_text(path, true)?;
        let text = text.ok_or_else(|| EnvError::validation(format!("edit_file: `{path}` does not exist")))?;
        let edited =
            replace_once(&text, old, new).map_err(|e| EnvError::validation(format!("edit_file: {e} in `{path}`")))?;
        self.workspace.write(&full, &edited).map_err(EnvError::execution)?;
        Ok(format!("edited {path}: {} line(s) replaced by {}", old.lines().count(), new.lines().count()))
    }

    fn run_command(&self, argv: &[String], commands: &mut Duration) -> Result<String, EnvError> {
        if !self.settings.config.allow_run {
            return Err(EnvError::validation("the run tool is disabled on this server (--no-run)"));
        }
        if !self.settings.config.allow_unconfined_run && !landlock_available() {
            return Err(EnvError::validation(
                "the run tool is refused: Landlock is not available here, so a command could read the dataset and \
                 other episodes (start the server with --allow-unconfined-run to allow it anyway)",
            ));
        }
        let limits = Limits {
            output_cap_bytes: OUTPUT_CAP,
            reads: self.settings.reads.clone(),
            ..Limits::for_tests(self.settings.config.run_timeout)
        };
        let run = run_in_dir(self.workspace.repo(), self.workspace.root(), argv, &self.command_env(), &limits)
            .map_err(|e| EnvError::execution(format!("run: {e:#}")))?;
        *commands += run.duration;
        let status = match (run.timed_out, run.exit_code) {
            (true, _) => format!(
                "timed out: over {} s of CPU time or {} s of wall time (killed)",
                limits.time_limit.as_secs(),
                crate::sandbox::cputime::wall_backstop(limits.time_limit).as_secs()
            ),
            (false, Some(code)) => format!("exit {code}"),
            (false, None) => "killed by a signal".to_string(),
        };
        let truncated = if run.truncated { "\n[output truncated]" } else { "" };
        Ok(format!("{status}\n{}{truncated}", run.output))
    }

    /// The interpreter the task's tests run on (the one it records, else the default).
    pub(crate) fn python(&self) -> &crate::pytest::venv::PythonEnv {
        self.settings.python_for(&self.entry.task)
    }

    /// The environment of tests and commands: the task's, with the venv first on PATH.
    pub(crate) fn command_env(&self) -> BTreeMap<String, String> {
        let mut env = self.entry.task.test_env.clone();
        let venv_bin = self.python().interpreter.parent().map(|p| p.display().to_string()).unwrap_or_default();
        env.insert("PATH".to_string(), format!("{venv_bin}:/usr/local/bin:/usr/bin:/bin"));
        env
    }

    /// The grader's verdict on the scanned tree (gold's tests over a copy of it); the
    /// first graded episode of a task also runs gold once. All of it is test time.
    fn run_tests(&mut self, scan: &TreeScan, commands: &mut Duration) -> Result<Verdict, EnvError> {
        let started = Instant::now();
        let command = self.test_command();
        let gold = self
            .entry
            .gold
            .get(&self.merged, &self.entry.solution, &command)
            .map_err(|e| EnvError::execution(format!("task {}: {e:#}", self.entry.task.id)))?;
        let verdict = grader::grade(&scan.snapshot(), &gold, &command)
            .map_err(|e| EnvError::execution(format!("running the tests: {e:#}")))?;
        *commands += started.elapsed();
        self.verdicts.insert(self.fingerprint.clone(), verdict.clone());
        Ok(verdict)
    }

    /// The task's test command with `python` meaning the venv's interpreter.
    pub(crate) fn test_command(&self) -> TestCommand {
        let task = &self.entry.task;
        let python = self.python().interpreter.display().to_string();
        let argv = task
            .test_command
            .iter()
            .map(|arg| if arg == "python" || arg == "python3" { python.clone() } else { arg.clone() })
            .collect();
        TestCommand {
            argv,
            env: self.command_env(),
            timeout: Duration::from_secs(task.timeout_s.max(1)),
            reads: self.settings.reads.clone(),
            known_failures: self.settings.known_failures.clone(),
        }
    }

    fn scan(&self) -> TreeScan {
        self.workspace.scan(SCAN_MAX_FILES, SCAN_MAX_FILE_BYTES)
    }

    /// The task as the agent may know it: level and family only when revealed.
    fn task_info(&self) -> TaskInfo {
        let task = &self.entry.task;
        let reveal = self.settings.config.reveal_task_info;
        TaskInfo {
            id: task.id.clone(),
            level: reveal.then(|| task.difficulty.level.name().to_string()),
            family: reveal.then(|| task.family.name().to_string()),
        }
    }

    fn observe(&self, last_output: String, reward_components: RewardComponents) -> Observation {
        let verdict = self.verdicts.get(&self.fingerprint);
        Observation {
            files: self.last_conflicted.clone(),
            conflict_count: self.facts.blocks,
            syntax_valid: self.facts.all_python_parses,
            tests_passing: verdict.is_some_and(|v| v.passed),
            tests: verdict.and_then(|v| v.counts),
            done: self.done,
            task: self.task_info(),
            last_output,
            reward_components,
            max_reward: self.max_reward,
            total_reward: self.ledger.total(),
            step_count: self.step_count,
            max_steps: self.settings.config.max_steps,
        }
    }
}

/// `text` with the one occurrence of `old` replaced by `new`; an error when `old` does
/// not occur or occurs more than once.
pub(crate) fn replace_once(text: &str, old: &str, new: &str) -> Result<String, String> {
    let mut found = text.match_indices(old).map(|(at, _)| at);
    match (found.next(), found.next()) {
        (Some(at), None) => Ok(format!("{}{new}{}", &text[..at], &text[at + old.len()..])),
        (None, _) => Err("`old_string` does not occur (it must match exactly, whitespace included)".into()),
        (Some(_), Some(_)) => Err(format!(
            "`old_string` occurs {} times: include more context so that it occurs once",
            text.matches(old).count()
        )),
    }
}

/// `run_tests`' report: the run's test ids, one per line.
fn test_ids(verdict: &Verdict) -> String {
    let passed = verdict.passed_ids.iter().map(|id| format!("PASSED {id}"));
    let failed = verdict.failed_ids.iter().map(|id| format!("FAILED {id}"));
    passed.chain(failed).collect::<Vec<_>>().join("\n")
}

fn push_line(output: &mut String, line: &str) {
    if line.is_empty() {
        return;
    }
    if !output.is_empty() && !output.ends_with('\n') {
        output.push('\n');
    }
    output.push_str(line);
}

/// A fresh episode id: 16 hex digits from the process's random hasher keys, the clock
/// and a counter.
pub(crate) fn new_episode_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    hasher
        .write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
    format!("{:016x}", hasher.finish())
}
