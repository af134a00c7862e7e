//! Sharding `gen-tasks` across machines and merging the shards into one version.
//!
//! A run's candidates have one global order ([`global_order`]). Shard K of N judges
//! every candidate at a position `p` with `p % N == K` — all of them: a shard cannot
//! know when the other shards met the goal, so it cannot stop early the way an
//! unsharded run does — and writes a shard folder `OUT/DATASET/VERSION.shard-K-of-N/`:
//!
//! ```text
//! shard.json                     format, K, N, the run's fingerprint, one record per
//!                                judged position (rejection reason, or the kept task's
//!                                id, near-duplicate fingerprint, level, family)
//! kept/<position>/task.json      every kept candidate's four task files
//! kept/<position>/solution.json
//! kept/<position>/repo.bundle
//! kept/<position>/solution.bundle
//! ```
//!
//! `merge-shards` checks that exactly shards 0..N-1 of one run are present, replays
//! the verdicts in global order through the same [`Acceptance`] an unsharded run
//! uses, applies `--max-tasks`, and writes the version with the manifest an unsharded
//! run writes: the result is byte-identical to the unsharded run. Each shard records
//! its measured durations in its own outcome cache (`runs/<dataset>/<version>.shard-K-of-N.json`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use indicatif::ProgressBar;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::accept::Exclusions;
use super::accept::{ensure_tasks, Acceptance, Keepable, Verdict};
use super::engine::{progress_bar, Engine};
use super::options::GenOptions;
use super::order::{global_order, Goal};
use super::stage::{stage, substrate_entries, Staged};
use super::{GenReport, GenStats, LevelBreakdown};
use crate::bundle::dataset::{self, VersionFiles, WriteResult};
use crate::bundle::manifest::{Generator, Ladder, SubstrateEntry, TaskEntry};
use crate::bundle::record::TaskFiles;
use crate::bundle::task::ConflictKind;
use crate::bundle::version::write_generated;
use crate::bundle::version::VersionMeta;
use crate::bundle::{task, version};
use crate::difficulty::quota::Quotas;
use crate::difficulty::Level;
use crate::forge::Family;
use crate::pytest::testrun::RunStats;
use crate::snapshot::sha256_hex;
use crate::validate::Rejection;

/// The `schema` of `shard.json` (2: kept tasks carry the four files of format v2).
pub(crate) const SHARD_SCHEMA: &str = "mergeforge.shard/2";
/// The file that marks a shard folder finished (written last).
pub(crate) const SHARD_FILE: &str = "shard.json";

/// Shard `index` of `count` (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShardSpec {
    pub(crate) index: usize,
    pub(crate) count: usize,
}

impl ShardSpec {
    /// Parses `K/N` (0 ≤ K < N).
    pub(crate) fn parse(text: &str) -> Result<ShardSpec> {
        let usage = "use K/N with shards numbered 0 to N-1, e.g. 0/3, 1/3, 2/3";
        let Some((k, n)) = text.split_once('/') else { bail!("--shard {text}: not K/N; {usage}") };
        let (Ok(index), Ok(count)) = (k.trim().parse::<usize>(), n.trim().parse::<usize>()) else {
            bail!("--shard {text}: K and N must be whole numbers; {usage}");
        };
        if count == 0 {
            bail!("--shard {text}: N must be at least 1; {usage}");
        }
        if index >= count {
            bail!("--shard {text}: K must be below N; {usage}");
        }
        Ok(ShardSpec { index, count })
    }

    /// Whether this shard judges global position `position`.
    pub(crate) fn holds(&self, position: usize) -> bool {
        position % self.count == self.index
    }

    /// How many of `positions` global positions this shard judges.
    fn share(&self, positions: usize) -> usize {
        (0..positions).filter(|p| self.holds(*p)).count()
    }

    /// The shard folder's name next to the version: `VERSION.shard-K-of-N`.
    pub(crate) fn folder_name(&self, version: &str) -> String {
        format!("{version}.shard-{}-of-{}", self.index, self.count)
    }
}

impl std::fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Everything the shards of one run must agree on; its hash is the run's fingerprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ShardRun {
    pub(crate) generator: Generator,
    /// Dataset, version, canonical command (no --shard, --out, --cache, --jobs), seed.
    #[serde(flatten)]
    pub(crate) meta: VersionMeta,
    pub(crate) per_cell: usize,
    /// `--quota` in canonical form, if any.
    pub(crate) quota: Option<String>,
    pub(crate) max_tasks: Option<usize>,
    /// The usable substrates, in order (`tasks` is 0 here).
    pub(crate) substrates: Vec<SubstrateEntry>,
    /// Each (substrate, family) cell and its number of candidates, in order.
    pub(crate) cells: Vec<CellRecord>,
    /// The ladder that levelled the shard's tasks (the same rungs and tool versions on
    /// every shard, or the levels would not be comparable).
    pub(crate) ladder: Ladder,
}

impl ShardRun {
    pub(crate) fn fingerprint(&self) -> Result<String> {
        Ok(sha256_hex(&serde_json::to_vec(self)?))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct CellRecord {
    /// Index into [`ShardRun::substrates`].
    pub(crate) substrate: usize,
    pub(crate) family: Family,
    pub(crate) candidates: usize,
}

/// `shard.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ShardFile {
    pub(crate) schema: String,
    pub(crate) shard: usize,
    pub(crate) of: usize,
    pub(crate) fingerprint: String,
    pub(crate) run: ShardRun,
    /// Positions in the global order (all shards together).
    pub(crate) positions: usize,
    /// Substrates this shard skipped (their tests failed), as (path, reason).
    #[serde(default)]
    pub(crate) skipped_substrates: Vec<(String, String)>,
    /// One per judged position, in order.
    pub(crate) records: Vec<PositionRecord>,
}

/// The verdict on the candidate at one global position.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PositionRecord {
    pub(crate) position: usize,
    pub(crate) cell: usize,
    /// The candidate's index in its cell.
    pub(crate) index: usize,
    #[serde(flatten)]
    pub(crate) verdict: RecordedVerdict,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub(crate) enum RecordedVerdict {
    Rejected {
        reason: Rejection,
    },
    /// A task (its files under `kept/<position>/`), not yet selected.
    Kept(KeptRecord),
}

/// What a shard records of a kept candidate (its files are under `kept/<position>/`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct KeptRecord {
    id: String,
    fingerprint: String,
    level: Level,
    family: Family,
    conflict_kind: ConflictKind,
    /// Index into [`ShardRun::substrates`].
    substrate: usize,
    task_sha256: String,
    /// The intents its sides make (selection keeps one intent out of too many tasks).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    intents: Vec<String>,
}

/// What `gen-tasks --shard` did.
#[derive(Debug, Clone)]
pub(crate) struct ShardReport {
    pub(crate) dir: PathBuf,
    pub(crate) write: WriteResult,
    pub(crate) shard: ShardSpec,
    pub(crate) fingerprint: String,
    /// Positions in the global order, and how many this shard judged.
    pub(crate) positions: usize,
    pub(crate) judged: usize,
    pub(crate) kept: usize,
    pub(crate) rejected: BTreeMap<Rejection, usize>,
    pub(crate) skipped_substrates: Vec<(String, String)>,
    pub(crate) elapsed: Duration,
}

/// `gen-tasks --shard K/N`: judges this shard's positions and writes its folder.
pub(crate) fn gen_shard(options: &GenOptions, shard: ShardSpec) -> Result<ShardReport> {
    let started = Instant::now();
    let staged = stage(options)?;
    let goal = options.goal();
    let engine = Engine::new(&staged, options.jobs);
    let order = engine.order(goal);
    let mine: Vec<usize> = (0..order.len()).filter(|p| shard.holds(*p)).collect();
    let bar = progress_bar(options.progress, mine.len() as u64);
    let judged = judge_positions(&engine, &order, &mine, &bar)?;
    bar.finish_and_clear();

    let run = shard_run(options, &staged);
    let fingerprint = run.fingerprint()?;
    let mut files = VersionFiles::new();
    let mut records = Vec::with_capacity(judged.len());
    let mut rejected = BTreeMap::new();
    let mut made_tasks = Vec::new();
    for (record, kept_files) in judged {
        match &record.verdict {
            RecordedVerdict::Rejected { reason } => *rejected.entry(*reason).or_default() += 1,
            RecordedVerdict::Kept(_) => {
                let made = kept_files.context("internal error: a kept candidate without files")?;
                let mut kept = VersionFiles::new();
                made.add_to(&mut kept, "kept")?;
                let prefix = format!("kept/{}/", made.task.id);
                for (name, bytes) in kept {
                    let name = name.strip_prefix(&prefix).unwrap_or(&name).to_string();
                    files.insert(format!("kept/{}/{name}", record.position), bytes);
                }
                made_tasks.push(made);
            }
        }
        records.push(record);
    }
    let file = ShardFile {
        schema: SHARD_SCHEMA.to_string(),
        shard: shard.index,
        of: shard.count,
        fingerprint: fingerprint.clone(),
        run,
        positions: order.len(),
        skipped_substrates: staged.skipped.clone(),
        records,
    };
    let bytes = task::to_json_bytes(&file)?;
    let suffix = format!(".shard-{}-of-{}", shard.index, shard.count);
    version::write_durations(&options.cache_dir, &options.meta(), &suffix, &made_tasks.iter().collect::<Vec<_>>())?;
    let parent = options.out.join(&options.dataset);
    let (write, dir) = dataset::write_folder(
        &parent,
        &shard.folder_name(&options.version),
        &format!("shard {shard}"),
        &files,
        (SHARD_FILE, &bytes),
    )?;
    Ok(ShardReport {
        dir,
        write,
        shard,
        fingerprint,
        positions: order.len(),
        judged: file.records.len(),
        kept: made_tasks.len(),
        rejected,
        skipped_substrates: staged.skipped,
        elapsed: started.elapsed(),
    })
}

/// What the shards of a run must agree on.
fn shard_run(options: &GenOptions, staged: &Staged) -> ShardRun {
    let zero = vec![0; staged.prepared.len()];
    ShardRun {
        generator: Generator { name: crate::GENERATOR.into(), version: crate::GENERATOR_VERSION.into() },
        meta: options.meta(),
        per_cell: options.per_cell,
        quota: options.quotas.as_ref().map(Quotas::to_string),
        max_tasks: options.max_tasks,
        substrates: substrate_entries(&staged.prepared, &zero),
        cells: staged
            .cells
            .iter()
            .map(|c| CellRecord { substrate: c.substrate, family: c.family, candidates: c.candidates.len() })
            .collect(),
        ladder: staged.ladder(),
    }
}

/// A judged position's record, with the task's files if it was kept.
type Judged = (PositionRecord, Option<TaskFiles>);

/// Judges the candidates at `positions` of `order` on a pool of `engine.jobs` threads;
/// the result is in the order of `positions`, and the first error stops the rest.
fn judge_positions(
    engine: &Engine,
    order: &[(usize, usize)],
    positions: &[usize],
    bar: &ProgressBar,
) -> Result<Vec<Judged>> {
    let pool = engine.pool()?;
    pool.install(|| {
        positions
            .par_iter()
            .map(|&position| {
                let judged = judge_position(engine, order, position)?;
                bar.inc(1);
                Ok(judged)
            })
            .collect()
    })
}

fn judge_position(engine: &Engine, order: &[(usize, usize)], position: usize) -> Result<Judged> {
    let (cell, index) = order[position];
    let (verdict, files) = match engine.judge(cell, index)? {
        Verdict::Rejected(reason) => (RecordedVerdict::Rejected { reason }, None),
        Verdict::Kept(draft) => {
            let json = task::to_json_bytes(&draft.files.task)?;
            let verdict = RecordedVerdict::Kept(KeptRecord {
                id: draft.id.clone(),
                fingerprint: draft.fingerprint.clone(),
                level: draft.level,
                family: draft.family,
                conflict_kind: draft.conflict_kind,
                substrate: draft.substrate,
                task_sha256: sha256_hex(&json),
                intents: draft.intents.clone(),
            });
            (verdict, Some(draft.files))
        }
    };
    Ok((PositionRecord { position, cell, index, verdict }, files))
}

/// A kept task as a shard recorded it.
struct ShardTask {
    record: KeptRecord,
    /// `<shard folder>/kept/<position>`.
    dir: PathBuf,
}

impl Keepable for ShardTask {
    fn id(&self) -> &str {
        &self.record.id
    }
    fn fingerprint(&self) -> &str {
        &self.record.fingerprint
    }
    fn level(&self) -> Level {
        self.record.level
    }
    fn conflict_kind(&self) -> ConflictKind {
        self.record.conflict_kind
    }
    fn intents(&self) -> &[String] {
        &self.record.intents
    }
}

/// `merge-shards OUT SHARD_DIR...`: writes the version the shards' run makes.
pub(crate) fn merge_shards(out: &Path, dirs: &[PathBuf]) -> Result<GenReport> {
    let started = Instant::now();
    let shards = load_shards(dirs)?;
    let (first_dir, first) = &shards[0];
    let run = &first.run;
    let quotas = run.quota.as_deref().map(Quotas::parse).transpose().context("the shards' recorded --quota")?;
    let goal = match &quotas {
        Some(quotas) => Goal::Quotas(quotas),
        None => Goal::PerCell(run.per_cell),
    };
    let sizes: Vec<usize> = run.cells.iter().map(|c| c.candidates).collect();
    let families: Vec<Family> = run.cells.iter().map(|c| c.family).collect();
    let order = global_order(&sizes, &families, goal);
    if order.len() != first.positions {
        bail!(
            "{}: records {} positions but its cells hold {}; the shard folder is damaged, generate it again",
            first_dir.display(),
            first.positions,
            order.len()
        );
    }
    let mut verdicts = collect_verdicts(&shards, &order, &sizes)?;

    let cells: Vec<(usize, Family)> = run.cells.iter().map(|c| (c.substrate, c.family)).collect();
    let mut state = Acceptance::new(goal, &cells, &Exclusions::default());
    let mut cursor = 0;
    if !state.advance(&order, &mut cursor, |c, k| verdicts[c][k].take()) {
        bail!("internal error: position {cursor} has no verdict although every shard is present");
    }
    let selection = state.finish();
    let kept = selection.accepted.len();
    let mut accepted = selection.accepted;
    if let Some(max) = run.max_tasks {
        accepted.truncate(max);
    }
    ensure_tasks(accepted.len(), selection.tried, &selection.rejected, &Default::default())?;

    let mut files = VersionFiles::new();
    let mut entries = Vec::with_capacity(accepted.len());
    let mut per_substrate = vec![0usize; run.substrates.len()];
    let mut levels = LevelBreakdown::default();
    for task in &accepted {
        let (entry, substrate) = add_shard_task(&mut files, &mut levels, task)?;
        per_substrate[substrate] += 1;
        entries.push(entry);
    }
    let substrates: Vec<SubstrateEntry> =
        run.substrates.iter().zip(&per_substrate).map(|(s, n)| SubstrateEntry { tasks: *n, ..s.clone() }).collect();
    let (write, version_dir, manifest) =
        write_generated(out, &run.meta, substrates, run.ladder.clone(), &files, entries)?;
    let stats = GenStats {
        candidates_tried: selection.tried,
        kept,
        rejected: selection.rejected,
        shortfall: selection.shortfall,
        repeated: selection
            .repeated
            .into_iter()
            .map(|cell| (run.substrates[cell.substrate].name.clone(), cell))
            .collect(),
        // The shards found the sites.
        sites: BTreeMap::new(),
        skipped_substrates: first.skipped_substrates.clone(),
        // Merging runs no tests: the shards ran them.
        runs: RunStats::default(),
        levels,
        flaky_tests: BTreeMap::new(),
        // The shards read the history and timed their stages.
        history: Default::default(),
        agent_rung: None,
        timings: Default::default(),
    };
    Ok(GenReport { version_dir, write, manifest, elapsed: started.elapsed(), stats })
}

/// Reads every shard folder and checks they are exactly shards 0..N-1 of one run;
/// returns them ordered by shard index.
fn load_shards(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, ShardFile)>> {
    if dirs.is_empty() {
        bail!("no shard folders given; pass every OUT/DATASET/VERSION.shard-K-of-N folder of the run");
    }
    let mut shards = Vec::with_capacity(dirs.len());
    for dir in dirs {
        shards.push((dir.clone(), read_shard(dir)?));
    }
    shards.sort_by_key(|(_, s)| s.shard);
    let (first_dir, first) = &shards[0];
    for (dir, shard) in &shards[1..] {
        if shard.fingerprint != first.fingerprint || shard.of != first.of {
            bail!(
                "{} (shard {}/{}, run {}) and {} (shard {}/{}, run {}) come from different runs; every shard must come from the same gen-tasks command, seed, substrates, generator and ladder (its rungs and their tools' versions)",
                dir.display(),
                shard.shard,
                shard.of,
                &shard.fingerprint[..12],
                first_dir.display(),
                first.shard,
                first.of,
                &first.fingerprint[..12]
            );
        }
    }
    for pair in shards.windows(2) {
        if pair[0].1.shard == pair[1].1.shard {
            bail!(
                "shard {}/{} is given twice ({} and {}); pass each shard folder once",
                pair[0].1.shard,
                first.of,
                pair[0].0.display(),
                pair[1].0.display()
            );
        }
    }
    let present: Vec<usize> = shards.iter().map(|(_, s)| s.shard).collect();
    let missing: Vec<String> =
        (0..first.of).filter(|k| !present.contains(k)).map(|k| format!("{k}/{}", first.of)).collect();
    if !missing.is_empty() {
        bail!(
            "shard {} missing (have {} of {}); run gen-tasks --shard K/N with the same options for each, then pass every shard folder",
            missing.join(", "),
            shards.len(),
            first.of
        );
    }
    Ok(shards)
}

/// Reads and checks one `shard.json`.
fn read_shard(dir: &Path) -> Result<ShardFile> {
    let path = dir.join(SHARD_FILE);
    let bytes = std::fs::read(&path).with_context(|| {
        format!(
            "{}: not a finished shard folder (no {SHARD_FILE}); pass the folders gen-tasks --shard K/N wrote (OUT/DATASET/VERSION.shard-K-of-N)",
            dir.display()
        )
    })?;
    let file: ShardFile =
        serde_json::from_slice(&bytes).with_context(|| format!("{}: not a valid shard file", path.display()))?;
    if file.schema != SHARD_SCHEMA {
        bail!(
            "{}: schema {:?}, expected {SHARD_SCHEMA:?}; generate the shard with this mergeforge",
            path.display(),
            file.schema
        );
    }
    if file.of == 0 || file.shard >= file.of {
        bail!("{}: shard {}/{} is not a valid shard number", path.display(), file.shard, file.of);
    }
    if file.run.fingerprint()? != file.fingerprint {
        bail!(
            "{}: its fingerprint does not match its run; the file was edited, generate the shard again",
            path.display()
        );
    }
    Ok(file)
}

/// Every position's verdict, by (cell, index in cell), checking that each shard
/// recorded exactly its positions.
fn collect_verdicts(
    shards: &[(PathBuf, ShardFile)],
    order: &[(usize, usize)],
    sizes: &[usize],
) -> Result<Vec<Vec<Option<Verdict<ShardTask>>>>> {
    let mut verdicts: Vec<Vec<Option<Verdict<ShardTask>>>> =
        sizes.iter().map(|n| (0..*n).map(|_| None).collect()).collect();
    for (dir, shard) in shards {
        let spec = ShardSpec { index: shard.shard, count: shard.of };
        let damaged = |what: String| {
            anyhow::anyhow!(
                "{}: {what}; the shard folder is damaged, generate it again",
                dir.join(SHARD_FILE).display()
            )
        };
        if shard.records.len() != spec.share(order.len()) {
            return Err(damaged(format!(
                "{} records where shard {spec} judges {} positions",
                shard.records.len(),
                spec.share(order.len())
            )));
        }
        for record in &shard.records {
            let p = record.position;
            if !spec.holds(p) || order.get(p) != Some(&(record.cell, record.index)) {
                return Err(damaged(format!("position {p} does not belong to shard {spec}")));
            }
            let slot = &mut verdicts[record.cell][record.index];
            if slot.is_some() {
                return Err(damaged(format!("position {p} is recorded twice")));
            }
            *slot = Some(match &record.verdict {
                RecordedVerdict::Rejected { reason } => Verdict::Rejected(*reason),
                RecordedVerdict::Kept(record) => {
                    let substrate = record.substrate;
                    if substrate >= shard.run.substrates.len() {
                        return Err(damaged(format!("position {p} names substrate {substrate}, which the run lacks")));
                    }
                    Verdict::Kept(ShardTask { record: record.clone(), dir: dir.join("kept").join(p.to_string()) })
                }
            });
        }
    }
    Ok(verdicts)
}

/// Adds a shard's kept task to the version files (checking its recorded digests) and
/// returns its manifest entry and substrate index.
fn add_shard_task(
    files: &mut VersionFiles,
    levels: &mut LevelBreakdown,
    task: &ShardTask,
) -> Result<(TaskEntry, usize)> {
    let ShardTask { record, dir } = task;
    let json_path = dir.join(crate::bundle::record::TASK_JSON);
    let json = std::fs::read(&json_path).with_context(|| format!("reading {}", json_path.display()))?;
    if sha256_hex(&json) != record.task_sha256 {
        bail!("{}: its sha256 differs from the shard's record; generate the shard again", json_path.display());
    }
    let made = TaskFiles::load(dir, &record.task_sha256)
        .with_context(|| format!("{}: generate the shard again", dir.display()))?;
    if made.task.id != record.id {
        bail!("{}: holds task {}, not {}; generate the shard again", dir.display(), made.task.id, record.id);
    }
    let entry = made.add_to(files, "tasks")?;
    levels.add(&made);
    Ok((entry, record.substrate))
}
