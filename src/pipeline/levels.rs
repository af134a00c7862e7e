//! Levels per family, and which medium rungs solve the medium tasks: what the
//! `gen-tasks` summary and its `--json` report, so a curriculum builder sees where each
//! family's difficulty comes from (the ladder's level, before any curriculum refresh).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::bundle::record::TaskFiles;
use crate::difficulty::Level;
use crate::forge::Family;
use crate::resolve::{self, Rung};
use crate::validate::ladder::AGENT_KEY;

/// Per family, the count of each level and of each medium rung's solves.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub(crate) struct LevelBreakdown {
    families: BTreeMap<Family, FamilyLevels>,
}

/// One family's row.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub(crate) struct FamilyLevels {
    pub(crate) easy: usize,
    pub(crate) medium: usize,
    pub(crate) hard: usize,
    /// Medium tasks solved by each medium record key (`union`, `tokens`, …, and `agent`
    /// for the agent rung, which plays only what every resolver left hard); a task that
    /// several combiners solve counts under each, so the counts may add up to more than
    /// `medium`. Keys that solve nothing are left out.
    pub(crate) medium_solved_by: BTreeMap<&'static str, usize>,
}

impl LevelBreakdown {
    /// The breakdown of `tasks`.
    pub(crate) fn of<'a>(tasks: impl IntoIterator<Item = &'a TaskFiles>) -> Self {
        let mut breakdown = LevelBreakdown::default();
        for task in tasks {
            breakdown.add(task);
        }
        breakdown
    }

    /// Counts one task under its family and structural level.
    pub(crate) fn add(&mut self, task: &TaskFiles) {
        let row = self.families.entry(task.task.family).or_default();
        match task.task.difficulty.structural_level {
            Level::Easy => row.easy += 1,
            Level::Hard => row.hard += 1,
            Level::Medium => {
                row.medium += 1;
                let baselines = &task.solution.validation.baselines;
                for (key, members) in resolve::record_keys() {
                    if members[0].rung() == Rung::Medium && baselines.key_passes(key) {
                        *row.medium_solved_by.entry(key).or_default() += 1;
                    }
                }
                if baselines.key_passes(AGENT_KEY) {
                    *row.medium_solved_by.entry(AGENT_KEY).or_default() += 1;
                }
            }
        }
    }

    /// The row of `family`, if this run made a task of it.
    pub(crate) fn family(&self, family: Family) -> Option<&FamilyLevels> {
        self.families.get(&family)
    }
}
