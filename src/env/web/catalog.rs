//! What the page shows of the dataset, read from the environment's loaded [`TaskSet`]:
//! task summaries filtered by level, family and substrate with a count for every value
//! of every filter, and the full view of one task (its conflicted and gold files with
//! the diff between them, the validation record and the baseline ladder).
//!
//! Pure functions of the task records: no file system, no test runs.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::diff;
use crate::bundle::Task;
use crate::difficulty::Level;
use crate::env::dataset::{TaskEntry, TaskSet};
use crate::env::reward::RewardWeights;
use crate::forge::Family;
use crate::validate::{Baselines, Outcome};

/// The filters of `GET /api/tasks`; a missing or empty value means "any".
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct Filter {
    pub(crate) level: Option<String>,
    pub(crate) family: Option<String>,
    pub(crate) substrate: Option<String>,
}

/// One value of a filter and how many tasks have it (the other filters applied).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FacetValue {
    pub(crate) value: String,
    pub(crate) count: usize,
}

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Facets {
    pub(crate) level: Vec<FacetValue>,
    pub(crate) family: Vec<FacetValue>,
    pub(crate) substrate: Vec<FacetValue>,
}

/// One row of the task list.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TaskSummary {
    pub(crate) id: String,
    pub(crate) level: Level,
    pub(crate) family: Family,
    pub(crate) substrate: String,
    pub(crate) score: f64,
    pub(crate) summary: String,
    pub(crate) hunks: usize,
    pub(crate) conflicted_files: usize,
}

/// `GET /api/tasks`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TaskList {
    pub(crate) dataset: String,
    pub(crate) version: String,
    pub(crate) total: usize,
    pub(crate) matching: usize,
    pub(crate) facets: Facets,
    pub(crate) agents: Vec<String>,
    pub(crate) tasks: Vec<TaskSummary>,
}

/// One file the gold merge changes: as merged (with markers if it conflicted), gold,
/// and the unified diff between them.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FileView {
    pub(crate) path: String,
    /// Whether git left conflict markers in it (else the gold merge edits it outside
    /// the conflicts).
    pub(crate) has_conflict: bool,
    pub(crate) conflicted: String,
    pub(crate) gold: String,
    pub(crate) diff: String,
}

/// One test run of the validation record.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct OutcomeRow {
    pub(crate) tree: String,
    pub(crate) passed: bool,
    pub(crate) timed_out: bool,
    pub(crate) failed_tests: Vec<String>,
}

/// One rung of the baseline ladder.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LadderRow {
    pub(crate) resolver: String,
    /// The level a task gets when this resolver is the first that solves it.
    pub(crate) rung: Level,
    /// `None` when the resolver was not available (mergiraf not installed).
    pub(crate) outcome: Option<OutcomeRow>,
}

/// `GET /api/tasks/{id}`.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TaskView {
    /// The task record (`task.json`).
    pub(crate) task: Value,
    pub(crate) files: Vec<FileView>,
    pub(crate) validation: Vec<OutcomeRow>,
    pub(crate) ladder: Vec<LadderRow>,
    /// The most an episode of this task can earn with the server's reward weights.
    pub(crate) max_reward: f64,
}

impl Filter {
    fn wanted(value: &Option<String>) -> Option<&str> {
        value.as_deref().filter(|v| !v.is_empty())
    }

    /// Refuses a level that does not exist (families and substrates just match nothing).
    pub(crate) fn check(&self) -> Result<(), String> {
        match Self::wanted(&self.level) {
            Some(level) if Level::parse(level).is_none() => {
                Err(format!("unknown level `{level}`: expected easy, medium or hard"))
            }
            _ => Ok(()),
        }
    }

    fn matches(&self, task: &Task, skip: Option<Facet>) -> bool {
        let ok = |facet: Facet, wanted: &Option<String>| {
            skip == Some(facet) || Self::wanted(wanted).is_none_or(|w| facet.value(task) == w)
        };
        ok(Facet::Level, &self.level) && ok(Facet::Family, &self.family) && ok(Facet::Substrate, &self.substrate)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Facet {
    Level,
    Family,
    Substrate,
}

impl Facet {
    fn value(self, task: &Task) -> &str {
        match self {
            Facet::Level => task.difficulty.level.name(),
            Facet::Family => task.family.name(),
            Facet::Substrate => &task.substrate.name,
        }
    }
}

/// The tasks matching `filter`, in id order, with the counts of every filter value.
pub(crate) fn list(tasks: &TaskSet, filter: &Filter, agents: &[&str]) -> TaskList {
    let substrates: BTreeSet<&str> = tasks.tasks.iter().map(|t| t.task.substrate.name.as_str()).collect();
    let facets = Facets {
        level: facet(tasks, filter, Facet::Level, Level::ALL.iter().map(|l| l.name())),
        family: facet(tasks, filter, Facet::Family, Family::ALL.iter().map(|f| f.name())),
        substrate: facet(tasks, filter, Facet::Substrate, substrates.into_iter()),
    };
    let rows: Vec<TaskSummary> =
        tasks.tasks.iter().filter(|t| filter.matches(&t.task, None)).map(|t| summary(t)).collect();
    TaskList {
        dataset: tasks.manifest.dataset.clone(),
        version: tasks.manifest.version.clone(),
        total: tasks.tasks.len(),
        matching: rows.len(),
        facets,
        agents: agents.iter().map(|a| a.to_string()).collect(),
        tasks: rows,
    }
}

fn facet<'a>(tasks: &TaskSet, filter: &Filter, which: Facet, values: impl Iterator<Item = &'a str>) -> Vec<FacetValue> {
    values
        .map(|value| FacetValue {
            value: value.to_string(),
            count: tasks
                .tasks
                .iter()
                .filter(|t| filter.matches(&t.task, Some(which)) && which.value(&t.task) == value)
                .count(),
        })
        .collect()
}

fn summary(entry: &TaskEntry) -> TaskSummary {
    let task = &entry.task;
    TaskSummary {
        id: task.id.clone(),
        level: task.difficulty.level,
        family: task.family,
        substrate: task.substrate.name.clone(),
        score: task.difficulty.score,
        summary: entry.solution.summary.clone(),
        hunks: task.conflicts.iter().map(|c| c.hunks).sum(),
        conflicted_files: task.conflicts.len(),
    }
}

/// Everything the page shows about one task.
pub(crate) fn view(entry: &TaskEntry, weights: &RewardWeights) -> Result<TaskView, String> {
    let task = &entry.task;
    let record = serde_json::to_value(task).map_err(|e| format!("task {}: cannot serialise: {e}", task.id))?;
    let files = entry
        .solution
        .files
        .iter()
        .map(|f| {
            Ok(FileView {
                path: f.path.clone(),
                has_conflict: task.has_markers(&f.path),
                conflicted: f.conflicted.clone(),
                gold: f.gold.clone(),
                diff: diff::unified(&f.path, &f.conflicted, &f.gold)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    let v = &entry.solution.validation;
    // Base first when the task recorded it (integration tasks: a working base).
    let validation: Vec<OutcomeRow> = v
        .base
        .iter()
        .map(|base| row("base", base))
        .chain([row("conflicted", &v.conflicted), row("ours", &v.ours), row("theirs", &v.theirs), row("gold", &v.gold)])
        .collect();
    let blocks = task.conflicts.iter().map(|c| c.hunks).sum();
    Ok(TaskView {
        task: record,
        files,
        validation,
        ladder: ladder(&v.baselines),
        max_reward: weights.max_reward(blocks),
    })
}

fn row(tree: &str, outcome: &Outcome) -> OutcomeRow {
    OutcomeRow {
        tree: tree.to_string(),
        passed: outcome.passed,
        timed_out: outcome.timed_out,
        failed_tests: outcome.failed_tests.clone(),
    }
}

/// The ladder in the order it levels a task, one row per resolver of the catalogue:
/// sides (easy), then combinations (medium), then the agent rung when it played.
fn ladder(baselines: &Baselines) -> Vec<LadderRow> {
    let resolvers = baselines.iter().map(|(resolver, outcome)| {
        let label = resolver.record_key().label();
        LadderRow {
            rung: Level::from(resolver.rung()),
            outcome: outcome.outcome().map(|o| row(&label, o)),
            resolver: label,
        }
    });
    let agent = baselines.agent.map(|agent| {
        let label = format!("agent ({} {})", agent.tries, if agent.tries == 1 { "try" } else { "tries" });
        let outcome =
            OutcomeRow { tree: label.clone(), passed: agent.passed, timed_out: false, failed_tests: Vec::new() };
        LadderRow { resolver: label, rung: Level::Medium, outcome: Some(outcome) }
    });
    resolvers.chain(agent).collect()
}
