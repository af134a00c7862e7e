//! Curriculum refresh: the next dataset version from agents' results on this one.
//!
//! Input: a dataset version and a results file ([`results`]). Per task the refresh
//! counts attempts and successes and decides ([`relevel`], thresholds there): retire
//! (moved to the `retired` split, files under `retired/tasks/<id>/`), mark
//! frontier-hard, re-level by solve rate (the ladder's level stays in
//! `difficulty.structural_level`), or leave alone. Every task's `task.json` gets a
//! `curriculum` record with its stats.
//!
//! Then every (family, level) cell with fewer active tasks than in the parent version
//! is refilled up to the parent's count by the gen-tasks machinery
//! ([`pipeline::generate`]) on the same substrates (their trees must be unchanged) with
//! a new seed (default: the parent's seed + 1) and quotas `family:level=deficit`; tasks
//! of the parent (active or retired) and their near-duplicates are never made again.
//! A shortfall is reported, not an error.
//!
//! Output: the next version (semver minor bump) as a full dataset version with a
//! `CHANGELOG.md` (this refresh's changes by cell and by task, then the parent's
//! changelog) and `parent` and `gen_command` in the manifest. The same inputs give the
//! same bytes. Nothing is written when the results file has a problem or anything else
//! fails: the version is written last, atomically.
//!
//! The refresh is two steps so that the command line stays outside the library:
//! [`plan`](mod@plan) reads and decides, the caller turns [`Plan::refill_command`] into
//! [`GenOptions`], and [`Plan::finish`] generates and writes.

pub(crate) mod changelog;
pub(crate) mod plan;
pub(crate) mod relevel;
pub(crate) mod results;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::bundle::dataset::{self, VersionFiles};
use crate::bundle::manifest::{Ladder, Manifest, ParentVersion, TaskEntry, MANIFEST_SCHEMA};
use crate::bundle::record::TaskFiles;
use crate::bundle::task::{self, CurriculumRecord, CurriculumStatus};
use crate::bundle::version::{self as bundle_version, StoredVersion};
use crate::difficulty::quota::{Cell, Quotas};
use crate::difficulty::Level;
use crate::forge::{Family, Group};
use crate::pipeline::{self, Exclusions, GenOptions};
use crate::snapshot::sha256_hex;
pub(crate) use plan::{Changes, Parent, Plan, RefreshOptions, RefreshReport, TaskChange};
use results::Stats;

/// Reads the parent version and the results, and decides every task.
pub(crate) fn plan(options: &RefreshOptions) -> Result<Plan> {
    let parent = read_parent(&options.dataset)?;
    let label = format!("{} {}", parent.manifest.dataset, parent.manifest.version);
    let known: BTreeSet<String> = parent.active.iter().chain(&parent.retired).map(|t| t.task.id.clone()).collect();
    let attempts = results::read(&options.results, &known, &label)?;
    let results_bytes = std::fs::read(&options.results)?;
    let stats = results::stats(&attempts);
    let version = next_version(&parent.manifest.version)?;
    let seed = options.seed.unwrap_or(parent.manifest.seed.wrapping_add(1));

    let mut changes = Changes {
        attempts: attempts.len(),
        agents: attempts.iter().filter_map(|a| a.agent.clone()).collect(),
        tasks_attempted: stats.len(),
        ..Changes::default()
    };
    let mut decisions = Vec::with_capacity(parent.active.len());
    for stored in &parent.active {
        let task = &stored.task;
        let task_stats = stats.get(&task.id).cloned().unwrap_or_default();
        let status = task.curriculum.as_ref().map_or(CurriculumStatus::Active, |c| c.status);
        let decision = relevel::decide(&task_stats, task.difficulty.level, status);
        let change = TaskChange {
            id: task.id.clone(),
            family: task.family,
            from: task.difficulty.level,
            to: decision.level,
            successes: task_stats.successes,
            attempts: task_stats.attempts,
        };
        let cell = |level| (task.family, level);
        changes.cells.entry(cell(change.from)).or_default().before += 1;
        match decision.status {
            CurriculumStatus::Retired => {
                changes.cells.entry(cell(change.from)).or_default().retired += 1;
                changes.retired.push(change.clone());
            }
            _ => {
                if decision.status == CurriculumStatus::FrontierHard && status != CurriculumStatus::FrontierHard {
                    changes.frontier_hard.push(change.clone());
                }
                if change.from != change.to {
                    changes.cells.entry(cell(change.from)).or_default().relevelled_out += 1;
                    changes.cells.entry(cell(change.to)).or_default().relevelled_in += 1;
                    changes.relevelled.push(change.clone());
                }
                changes.cells.entry(cell(change.to)).or_default().after += 1;
            }
        }
        decisions.push((decision, task_stats));
    }
    let deficits: BTreeMap<(Family, Level), usize> =
        changes.cells.iter().filter(|(_, c)| c.after < c.before).map(|(cell, c)| (*cell, c.before - c.after)).collect();
    Ok(Plan { parent, version, seed, results_sha256: sha256_hex(&results_bytes), decisions, deficits, changes })
}

impl Plan {
    /// The gen-tasks command line whose machinery refills cells, when any needs it.
    pub(crate) fn refill_command(&self) -> Option<Result<&[String]>> {
        if self.deficits.is_empty() {
            return None;
        }
        Some(gen_command(&self.parent.manifest).with_context(|| {
            format!(
                "{}: the manifest records no gen-tasks command to refill with",
                self.parent.dir.join("manifest.json").display()
            )
        }))
    }

    /// Refills under-supplied cells with `recipe` (the options of
    /// [`Plan::refill_command`]; required when it is `Some`) and writes the version.
    pub(crate) fn finish(mut self, recipe: Option<GenOptions>, options: &RefreshOptions) -> Result<RefreshReport> {
        let (added, refill_ladder) = match (self.deficits.is_empty(), recipe) {
            (true, _) => (Vec::new(), None),
            (false, None) => bail!("cells need refilling but no gen-tasks options were given"),
            (false, Some(recipe)) => {
                let (added, ladder) = self.refill(recipe, options)?;
                (added, Some(ladder))
            }
        };
        let ladder = ladder_of(&self.parent.manifest.ladder, refill_ladder);
        let (files, manifest) = self.assemble(&added, ladder, options)?;
        let manifest_bytes = task::to_json_bytes(&manifest)?;
        let (write, version_dir) =
            dataset::write_version(&options.out, &manifest.dataset, &manifest.version, &files, &manifest_bytes)?;
        Ok(RefreshReport { version_dir, write, manifest, changes: self.changes })
    }

    /// Generates new tasks for the deficits; returns them and the ladder that levelled them.
    fn refill(&mut self, mut recipe: GenOptions, options: &RefreshOptions) -> Result<(Vec<TaskFiles>, Ladder)> {
        check_substrates(&recipe, &self.parent)?;
        let quotas = Quotas {
            targets: self
                .deficits
                .iter()
                .map(|((family, level), n)| (Cell { family: Some(*family), level: *level }, *n))
                .collect(),
        };
        // Real history is what the project holds: a refill never makes it again.
        recipe.families.retain(|f| f.group() != Group::History && self.deficits.keys().any(|(family, _)| family == f));
        recipe.quotas = Some(quotas);
        recipe.seed = self.seed;
        recipe.candidates_per_cell = usize::MAX;
        recipe.max_tasks = None;
        recipe.cache_dir = options.cache_dir.clone().unwrap_or_else(|| options.out.join(".mergeforge-cache"));
        recipe.jobs = options.jobs;
        recipe.progress = options.progress;
        let mut exclusions = Exclusions::default();
        for stored in self.parent.active.iter().chain(&self.parent.retired) {
            exclusions.add(stored);
        }
        let generated = pipeline::generate(&recipe, &exclusions)?;
        self.changes.shortfall = generated.stats.shortfall.clone();
        for new in &generated.tasks {
            let level = new.task.difficulty.level;
            let counts = self.changes.cells.entry((new.task.family, level)).or_default();
            counts.added += 1;
            counts.after += 1;
            self.changes.added.push(TaskChange {
                id: new.task.id.clone(),
                family: new.task.family,
                from: level,
                to: level,
                successes: 0,
                attempts: 0,
            });
        }
        Ok((generated.tasks, generated.ladder))
    }

    fn assemble(
        &self,
        added: &[TaskFiles],
        ladder: Ladder,
        options: &RefreshOptions,
    ) -> Result<(VersionFiles, Manifest)> {
        let mut files = VersionFiles::new();
        let mut active = Vec::new();
        let mut retired = Vec::new();
        for stored in &self.parent.retired {
            let entry = self.parent.manifest.retired.iter().find(|e| e.id == stored.task.id).cloned();
            let entry = entry.context("a retired task without a manifest entry")?;
            // Unchanged: the same task.json bytes as in the parent.
            if stored.add_to(&mut files, "retired/tasks")? != entry {
                bail!("retired task {}: its task.json no longer matches its manifest entry", entry.id);
            }
            retired.push(entry);
        }
        for (stored, (decision, stats)) in self.parent.active.iter().zip(&self.decisions) {
            let mut task = stored.clone();
            task.task.difficulty.level = decision.level;
            task.task.curriculum = Some(record(decision.status, stats));
            if decision.status == CurriculumStatus::Retired {
                retired.push(task.add_to(&mut files, "retired/tasks")?);
            } else {
                active.push(task.add_to(&mut files, "tasks")?);
            }
        }
        for new in added {
            let mut task = new.clone();
            task.task.curriculum = Some(record(CurriculumStatus::New, &Stats::default()));
            active.push(task.add_to(&mut files, "tasks")?);
        }
        files.insert("CHANGELOG.md".into(), changelog::render(self, options).into_bytes());
        let parent = &self.parent.manifest;
        let substrates = parent
            .substrates
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.tasks = active.iter().filter(|e: &&TaskEntry| e.substrate == s.name).count();
                s
            })
            .collect();
        let manifest = Manifest {
            schema: MANIFEST_SCHEMA.to_string(),
            dataset: parent.dataset.clone(),
            version: self.version.clone(),
            generator: bundle_version::generator(),
            command: options.command.clone(),
            seed: self.seed,
            substrates,
            ladder,
            counts: bundle_version::counts(&active, retired.len()),
            tasks: active,
            retired,
            parent: Some(ParentVersion {
                version: parent.version.clone(),
                manifest_sha256: self.parent.manifest_sha256.clone(),
            }),
            gen_command: gen_command(parent).map(<[String]>::to_vec),
        };
        Ok((files, manifest))
    }
}

/// The ladder of a refreshed version: its refill's when it had one (the newest tools),
/// else its parent's; either way incomplete when the parent's was, and levelled with
/// an agent when the parent's was, since the parent's tasks keep the levels that ladder
/// gave them.
fn ladder_of(parent: &Ladder, refill: Option<Ladder>) -> Ladder {
    let Some(mut ladder) = refill else { return parent.clone() };
    if ladder.agent.is_none() {
        ladder.agent = parent.agent.clone();
    }
    for missing in &parent.missing {
        if !ladder.missing.iter().any(|m| m.resolver == missing.resolver) {
            ladder.missing.push(missing.clone());
        }
    }
    ladder.complete = ladder.missing.is_empty();
    ladder
}

/// The gen-tasks command a version was made with, directly or through its parents.
fn gen_command(manifest: &Manifest) -> Option<&[String]> {
    match &manifest.gen_command {
        Some(command) => Some(command),
        None => {
            (manifest.command.get(1).map(String::as_str) == Some("gen-tasks")).then_some(manifest.command.as_slice())
        }
    }
}

fn record(status: CurriculumStatus, stats: &Stats) -> CurriculumRecord {
    let round = |x: f64| (x * 10_000.0).round() / 10_000.0;
    CurriculumRecord {
        status,
        attempts: stats.attempts,
        successes: stats.successes,
        solve_rate: stats.solve_rate().map(round),
        mean_reward: stats.mean_reward().map(round),
    }
}

/// `MAJOR.(MINOR+1).0`.
pub(crate) fn next_version(version: &str) -> Result<String> {
    let mut v = semver::Version::parse(version).with_context(|| format!("parent version {version} is not semver"))?;
    v.minor += 1;
    v.patch = 0;
    v.pre = semver::Prerelease::EMPTY;
    v.build = semver::BuildMetadata::EMPTY;
    Ok(v.to_string())
}

/// The version folder `dir` names: itself, or the highest version inside it.
pub(crate) fn version_dir(dir: &Path) -> Result<PathBuf> {
    if dir.join("manifest.json").is_file() {
        return Ok(dir.to_path_buf());
    }
    let entries = std::fs::read_dir(dir).with_context(|| {
        format!("{}: no such dataset folder; pass a version folder (with manifest.json)", dir.display())
    })?;
    let mut best: Option<(semver::Version, PathBuf)> = None;
    for entry in entries {
        let path = entry?.path();
        let Some(version) = path.file_name().and_then(|n| semver::Version::parse(&n.to_string_lossy()).ok()) else {
            continue;
        };
        if path.join("manifest.json").is_file() && best.as_ref().is_none_or(|(v, _)| version > *v) {
            best = Some((version, path));
        }
    }
    best.map(|(_, p)| p).with_context(|| format!("{}: no manifest.json and no version folder with one", dir.display()))
}

/// Reads a version and checks every file against the manifest's digests.
pub(crate) fn read_parent(dir: &Path) -> Result<Parent> {
    let dir = version_dir(dir)?;
    let version = StoredVersion::load(&dir)?;
    let changelog = std::fs::read_to_string(dir.join("CHANGELOG.md")).ok();
    Ok(Parent {
        dir,
        manifest_sha256: sha256_hex(&version.manifest_bytes),
        manifest: version.manifest,
        active: version.tasks,
        retired: version.retired,
        changelog,
    })
}

/// Every substrate the recipe uses must be the one the parent was made from.
fn check_substrates(recipe: &GenOptions, parent: &Parent) -> Result<()> {
    for spec in &recipe.substrates {
        let substrate = crate::substrate::load(spec)?;
        let Some(recorded) = parent.manifest.substrates.iter().find(|s| s.name == substrate.name) else {
            bail!(
                "substrate {} ({}) is not one {} {} was made from; refills use the same substrates",
                substrate.name,
                spec.path.display(),
                parent.manifest.dataset,
                parent.manifest.version
            );
        };
        if recorded.tree != substrate.tree_id {
            bail!(
                "substrate {} ({}) changed since {} {} was made (tree {} now {}); refills need the same substrates",
                substrate.name,
                spec.path.display(),
                parent.manifest.dataset,
                parent.manifest.version,
                &recorded.tree[..12],
                &substrate.tree_id[..12]
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::manifest::{LadderTools, MissingReason, MissingRung};

    fn ladder(mergiraf: Option<&str>, missing: &[(&str, MissingReason)]) -> Ladder {
        let missing: Vec<MissingRung> =
            missing.iter().map(|(r, reason)| MissingRung { resolver: r.to_string(), reason: *reason }).collect();
        Ladder {
            complete: missing.is_empty(),
            missing,
            tools: LadderTools {
                mergiraf: mergiraf.map(str::to_string),
                libgit2: "1.9.7".into(),
                python: "Python 3.12.3".into(),
                pytest: "8.4.2".into(),
            },
            agent: None,
        }
    }

    #[test]
    fn a_refreshed_version_keeps_its_parents_missing_rungs() {
        let full = ladder(Some("mergiraf 0.20.0"), &[]);
        let skipped = ladder(None, &[("mergiraf", MissingReason::Skipped)]);
        assert_eq!(ladder_of(&full, None), full, "no refill: the parent's ladder");
        assert_eq!(ladder_of(&skipped, Some(full.clone())), {
            let mut l = full.clone();
            l.complete = false;
            l.missing = skipped.missing.clone();
            l
        });
        assert_eq!(ladder_of(&full, Some(skipped.clone())), skipped);
    }
}
