//! `gen-tasks`: drives the stages from substrates to a written dataset version.
//!
//! Work is split into cells, one per (substrate, family), each holding its candidates
//! in seeded order. The cells' candidates are laid out in one global order and judged
//! in parallel (a rayon pool judges ahead of the decisions, [`engine`]), but kept
//! strictly in that order, so the result never depends on `--jobs` or on timing:
//!
//! - by default the order is cell after cell, and each cell keeps its first `per_cell`
//!   tasks;
//! - with quotas ([`crate::difficulty::quota::Quotas`]) the order takes one candidate of each cell in turn, and a
//!   task is kept while a quota wants its (family, level), until every quota is met or
//!   the candidates run out (the shortfall is reported).
//!
//! A task whose conflict hunks equal a kept task's after normalising whitespace and
//! identifiers ([`crate::difficulty::near_duplicate`]) is dropped as `near-duplicate`, as is one listed in
//! the [`Exclusions`] a caller passes (the curriculum passes its dataset's tasks).
//!
//! [`shard`] splits the global order across machines (`gen-tasks --shard K/N`) and
//! merges the shards' verdicts with the same [`accept::Acceptance`] code (`merge-shards`).
//!
//! A file per job: [`options`] (what a run is asked), [`stage`](mod@stage) (substrates prepared,
//! cells forged), [`order`] (the global order), [`judge`] (one candidate judged),
//! [`grader_check`] (a kept candidate played by the environment's baseline agents),
//! [`agent_rung`] (an external agent on what the resolvers left hard, `--agent-rung`)
//! and [`agent_cache`] (its tries' trees),
//! [`engine`] (judging in parallel), [`draft`] (a kept candidate's task files),
//! [`accept`] (selection), [`levels`] (levels by family for the report), [`shard`]
//! (sharded runs); the version itself is written by [`crate::bundle`].

mod accept;
mod agent_cache;
mod agent_rung;
mod draft;
mod engine;
mod grader_check;
mod head;
mod judge;
mod levels;
mod options;
mod order;
mod rig;
pub(crate) mod shard;
mod stage;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::bundle::dataset::{VersionFiles, WriteResult};
use crate::bundle::manifest::{Ladder, Manifest, SubstrateEntry};
use crate::bundle::record::TaskFiles;
use crate::bundle::version::{self, write_generated};
use crate::difficulty::quota::Shortfall;
use crate::pytest::testrun::RunStats;
use crate::substrate::history::HistoryCounts;
use crate::validate::Rejection;
pub(crate) use accept::Exclusions;
use accept::{ensure_tasks, RepeatedCell};
use agent_rung::AgentRung;
pub(crate) use agent_rung::AgentRungStats;
use engine::{progress_bar, Engine};
pub(crate) use levels::LevelBreakdown;
pub(crate) use options::{embedded_substrates, AgentRungOptions, GenOptions, HistoryPython};
pub(crate) use stage::mutable_modules;
use stage::{history_counts, stage, substrate_entries};

/// What judging a run's candidates came to, whether or not it wrote a version.
#[derive(Debug, Clone, Default)]
pub(crate) struct GenStats {
    pub(crate) candidates_tried: usize,
    /// Tasks kept (before `--max-tasks`).
    pub(crate) kept: usize,
    /// Rejected candidates by reason.
    pub(crate) rejected: BTreeMap<Rejection, usize>,
    /// Quotas that were not met (empty without quotas).
    pub(crate) shortfall: Vec<Shortfall>,
    /// Cells short of `--per-cell` because candidates repeated an intent, as (substrate
    /// name, the cell).
    pub(crate) repeated: Vec<(String, RepeatedCell)>,
    /// Intents' sites found at HEAD per kind, over all substrates: what the integration
    /// families had to combine (empty when none ran, or when merging shards).
    pub(crate) sites: BTreeMap<&'static str, usize>,
    /// Substrates skipped, as (path, reason).
    pub(crate) skipped_substrates: Vec<(String, String)>,
    /// The test runners' work over all substrates (none when merging shards: the shards
    /// ran the tests).
    pub(crate) runs: RunStats,
    /// Levels per family of the tasks this run made, and the medium rungs that solve them.
    pub(crate) levels: LevelBreakdown,
    /// Per substrate, the tests seen flipping between two runs of one tree (candidates
    /// resting on them were dropped as `flaky`); substrates without any are left out.
    pub(crate) flaky_tests: BTreeMap<String, Vec<String>>,
    /// What the history scans found (all zero when the run read no history).
    pub(crate) history: HistoryCounts,
    /// What the agent rung did (`None` when the run has none).
    pub(crate) agent_rung: Option<AgentRungStats>,
    /// Wall time per stage.
    pub(crate) timings: Timings,
}

/// Wall time per stage of a run.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub(crate) struct Timings {
    /// Substrates loaded, their tests run at HEAD, coverage maps, parsing and mutations.
    #[serde(serialize_with = "seconds")]
    pub(crate) prepare: Duration,
    /// History walked and classified (git only).
    #[serde(serialize_with = "seconds")]
    pub(crate) history: Duration,
    /// Intents' sites found and candidates built.
    #[serde(serialize_with = "seconds")]
    pub(crate) forge: Duration,
    /// Candidates merged, tested, levelled and checked by the grader.
    #[serde(serialize_with = "seconds")]
    pub(crate) judge: Duration,
}

fn seconds<S: serde::Serializer>(d: &Duration, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_f64((d.as_secs_f64() * 10.0).round() / 10.0)
}

/// What a run did: the version it wrote, and its [`GenStats`].
#[derive(Debug, Clone)]
pub(crate) struct GenReport {
    pub(crate) version_dir: PathBuf,
    pub(crate) write: WriteResult,
    pub(crate) manifest: Manifest,
    pub(crate) elapsed: Duration,
    pub(crate) stats: GenStats,
}

/// What [`generate`] made.
#[derive(Debug, Clone)]
pub(crate) struct Generated {
    /// In generation order, `max_tasks` applied.
    pub(crate) tasks: Vec<TaskFiles>,
    /// Every usable substrate, in order (with task counts of `tasks`).
    pub(crate) substrates: Vec<SubstrateEntry>,
    /// The ladder that levelled the tasks.
    pub(crate) ladder: Ladder,
    pub(crate) stats: GenStats,
}

/// Runs the whole pipeline and writes the dataset version.
pub(crate) fn gen_tasks(options: &GenOptions) -> Result<GenReport> {
    let started = Instant::now();
    let generated = generate(options, &Exclusions::default())?;
    ensure_tasks(
        generated.tasks.len(),
        generated.stats.candidates_tried,
        &generated.stats.rejected,
        &generated.stats.history,
    )?;
    let mut files = VersionFiles::new();
    let entries = version::add_tasks(&mut files, &generated.tasks)?;
    let meta = options.meta();
    let (write, version_dir, manifest) =
        write_generated(&options.out, &meta, generated.substrates.clone(), generated.ladder.clone(), &files, entries)?;
    version::write_durations(&options.cache_dir, &meta, "", &generated.tasks.iter().collect::<Vec<_>>())?;
    Ok(GenReport { version_dir, write, manifest, elapsed: started.elapsed(), stats: generated.stats })
}

/// Prepares the substrates, forges and judges candidates, and returns the kept tasks
/// (not written). Tasks in `exclude` (and their near-duplicates) are not made again.
pub(crate) fn generate(options: &GenOptions, exclude: &Exclusions) -> Result<Generated> {
    let staged = stage(options)?;
    let goal = options.goal();
    let engine = Engine::new(&staged, options.jobs);
    let total: usize = staged.cells.iter().map(|c| c.candidates.len()).sum();
    let bar = progress_bar(options.progress, total as u64);
    let judging = Instant::now();
    let selection = engine.select(goal, exclude, &bar)?;
    bar.finish_and_clear();
    let timings = Timings {
        prepare: staged.timings.prepare,
        history: staged.timings.history,
        forge: staged.timings.forge,
        judge: judging.elapsed(),
    };

    let kept = selection.accepted.len();
    let mut drafts = selection.accepted;
    if let Some(max) = options.max_tasks {
        drafts.truncate(max);
    }
    let mut tasks = Vec::with_capacity(drafts.len());
    let mut per_substrate = vec![0usize; staged.prepared.len()];
    for draft in drafts {
        per_substrate[draft.substrate] += 1;
        tasks.push(draft.files);
    }
    let ladder = staged.ladder();
    let stats = GenStats {
        candidates_tried: selection.tried,
        kept,
        rejected: selection.rejected,
        shortfall: selection.shortfall,
        repeated: selection
            .repeated
            .into_iter()
            .map(|cell| (staged.prepared[cell.substrate].substrate.name.clone(), cell))
            .collect(),
        sites: staged.sites.clone(),
        skipped_substrates: staged.skipped,
        runs: staged.prepared.iter().map(|p| p.runner.stats()).sum(),
        levels: LevelBreakdown::of(&tasks),
        flaky_tests: staged
            .prepared
            .iter()
            .map(|p| (p.substrate.name.clone(), p.runner.flaky_tests()))
            .filter(|(_, ids)| !ids.is_empty())
            .collect(),
        history: history_counts(&staged.prepared),
        agent_rung: staged.agent_rung.as_ref().map(AgentRung::stats),
        timings,
    };
    Ok(Generated { tasks, substrates: substrate_entries(&staged.prepared, &per_substrate), ladder, stats })
}
