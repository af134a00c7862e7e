//! Judging in parallel: [`Engine`] hands candidates to a rayon pool sized by `--jobs`,
//! ahead of the decisions (about twice as many in flight as there are threads, no more
//! than the goal may still need), and feeds their verdicts to [`Acceptance`] strictly in
//! the global order, stopping when the goal is met: the result never depends on
//! `--jobs` or on timing.

use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

use super::accept::Exclusions;
use super::accept::{Acceptance, Selection, Verdict};
use super::agent_rung::AgentRung;
use super::draft::Draft;
use super::judge::judge;
use super::order::{global_order, Goal};
use super::stage::{Cell, Prepared, Staged};
use crate::forge::Family;

/// A judged candidate, (cell, index in cell), as the pool hands it back.
type Judged = ((usize, usize), Result<Verdict<Box<Draft>>>);

/// Judges candidates on a thread pool and keeps them in global order.
pub(super) struct Engine<'a> {
    prepared: &'a [Prepared],
    cells: &'a [Cell],
    repo_path: &'a Path,
    /// The agent rung, when the run has one.
    agent_rung: Option<&'a AgentRung>,
    /// Workers judging candidates at once (the result does not depend on it).
    jobs: usize,
}

impl<'a> Engine<'a> {
    /// An engine judging `staged`'s candidates on `jobs` workers (at least one).
    pub(super) fn new(staged: &'a Staged, jobs: usize) -> Self {
        Engine {
            prepared: &staged.prepared,
            cells: &staged.cells,
            repo_path: staged.repo_path(),
            agent_rung: staged.agent_rung.as_ref(),
            jobs: jobs.max(1),
        }
    }

    /// The global order: (cell, index in cell).
    pub(super) fn order(&self, goal: Goal) -> Vec<(usize, usize)> {
        let sizes: Vec<usize> = self.cells.iter().map(|c| c.candidates.len()).collect();
        let families: Vec<Family> = self.cells.iter().map(|c| c.family).collect();
        global_order(&sizes, &families, goal)
    }

    /// Each cell's (substrate, family).
    fn cell_keys(&self) -> Vec<(usize, Family)> {
        self.cells.iter().map(|c| (c.substrate, c.family)).collect()
    }

    /// Judges candidate `k` of cell `c`.
    pub(super) fn judge(&self, c: usize, k: usize) -> Result<Verdict<Box<Draft>>> {
        let cell = &self.cells[c];
        judge(&self.prepared[cell.substrate], cell.substrate, &cell.candidates[k], self.repo_path, self.agent_rung)
    }

    /// A pool of `jobs` threads to judge on.
    pub(super) fn pool(&self) -> Result<rayon::ThreadPool> {
        rayon::ThreadPoolBuilder::new()
            .num_threads(self.jobs)
            .thread_name(|i| format!("mergeforge-judge-{i}"))
            .build()
            .context("starting the judging workers")
    }

    /// [`Engine::judge`] with a panic turned into an error, so that every candidate
    /// handed out comes back with a verdict or an error.
    fn judge_caught(&self, c: usize, k: usize) -> Result<Verdict<Box<Draft>>> {
        std::panic::catch_unwind(AssertUnwindSafe(|| self.judge(c, k)))
            .unwrap_or_else(|_| Err(anyhow!("internal error: judging candidate {k} of cell {c} panicked")))
    }

    /// Judges candidates on the pool, ahead of the decisions, and decides them in global
    /// order (the calling thread decides; the pool's threads only judge).
    pub(super) fn select(&self, goal: Goal, exclude: &Exclusions, bar: &ProgressBar) -> Result<Selection<Box<Draft>>> {
        let order = self.order(goal);
        let mut state = Acceptance::new(goal, &self.cell_keys(), exclude);
        let mut work = Work {
            verdicts: self.cells.iter().map(|c| (0..c.candidates.len()).map(|_| None).collect()).collect(),
            dispatched: vec![0; self.cells.len()],
            in_flight: vec![0; self.cells.len()],
        };
        let pool = self.pool()?;
        let (done_tx, done_rx) = mpsc::channel::<Judged>();
        let stop = AtomicBool::new(false);
        pool.in_place_scope(|scope| {
            let dispatch = |(c, k): (usize, usize)| {
                let (done_tx, stop) = (done_tx.clone(), &stop);
                scope.spawn(move |_| {
                    // Candidates handed out before the goal was met are not judged after.
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let verdict = self.judge_caught(c, k);
                    bar.inc(1);
                    // The driver may have stopped listening (goal met, or an error).
                    let _ = done_tx.send(((c, k), verdict));
                });
            };
            let result = self.drive(&order, &mut state, &mut work, dispatch, &done_rx, bar);
            stop.store(true, Ordering::Relaxed);
            result
        })?;
        Ok(state.finish())
    }

    /// Keeps the pool fed (`dispatch` hands a candidate to it) and decides verdicts in
    /// global order as they arrive, until the goal is met or every candidate is decided.
    fn drive(
        &self,
        order: &[(usize, usize)],
        state: &mut Acceptance<Box<Draft>>,
        work: &mut Work,
        dispatch: impl Fn((usize, usize)),
        done: &mpsc::Receiver<Judged>,
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
                dispatch(job);
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

pub(super) fn progress_bar(visible: bool, total: u64) -> ProgressBar {
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
