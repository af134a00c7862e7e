//! Levels and scores a validated task; quotas on levels and near-duplicate detection,
//! which decide what a dataset keeps.
//!
//! **Level** is the first rung of the baseline ladder that solves the task:
//!
//! | level | solved by |
//! |---|---|
//! | easy | taking ours or taking theirs |
//! | medium | a combination: union (either order), `rule`, `tokens`, `structured` or `mergiraf` |
//! | hard | none of them |
//!
//! Each resolver's rung is an item of its catalogue entry ([`crate::resolve::Resolver::rung`]).
//!
//! A curriculum refresh may re-level a task by how often agents solve it; the ladder's
//! level is then kept as `structural_level` (for a generated task both are equal).
//!
//! **Score**, in [0, 1], rounded to 3 decimals: the level's base plus weighted features,
//! each scaled to [0, 1] (weights sum to 0.5, so the levels' ranges overlap only at
//! their edges):
//!
//! | part | weight |
//! |---|---|
//! | level: easy 0, medium 0.25, hard 0.5 | — |
//! | extra hunks: min(hunks − 1, 3) / 3 | 0.08 |
//! | conflicted lines: min(lines, 40) / 40 | 0.08 |
//! | extra conflicted files: min(files − 1, 2) / 2 | 0.06 |
//! | gold edits files outside the conflicts: min(files, 2) / 2 | 0.08 |
//! | weak signal: 1 − min(fewest failing tests of a failing side, 10) / 10 | 0.08 |
//! | operators: (distinct operators − 1 + mean subtlety) / 3, at most 1 | 0.06 |
//! | family: strip-restore 0.25, divergent-edit 0, compose-edits 1, signature-callsite 0.75 | 0.06 |
//!
//! An operator's subtlety ([`crate::mutate::Operator::subtlety`], an item of its
//! catalogue entry) is how far its change is from a visible value swap: 0 for a changed
//! constant or default, up to 1 for reorderings and renames that keep every token. The
//! family prior ([`crate::forge::FamilyBuilder::prior`]) is how much reasoning beyond
//! picking lines the family's gold merge needs.

pub mod near_duplicate;
pub mod quota;

use serde::{Deserialize, Serialize};

use crate::forge::Family;
use crate::mutate::OperatorRef;
use crate::resolve::Rung;
use crate::validate::Validation;

/// A rung of the difficulty ladder.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Level {
    Easy,
    Medium,
    Hard,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    /// The lowercase name, as serde writes it.
    pub fn name(self) -> &'static str {
        self.into()
    }

    pub fn parse(name: &str) -> Option<Level> {
        name.parse().ok()
    }
}

impl From<Rung> for Level {
    fn from(rung: Rung) -> Level {
        match rung {
            Rung::Easy => Level::Easy,
            Rung::Medium => Level::Medium,
        }
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// What the score is computed from; recorded in `solution.json` (not in `task.json`:
/// it names the operators).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Features {
    /// Conflict hunks over all files.
    pub hunks: usize,
    /// Lines between the hunks' markers.
    pub conflicted_lines: usize,
    /// Files with conflicts.
    pub conflicted_files: usize,
    /// Files the gold merge changes outside the conflicts.
    pub files_outside_conflicts: usize,
    /// Failing tests on ours alone.
    pub failing_tests_ours: usize,
    /// Failing tests on theirs alone.
    pub failing_tests_theirs: usize,
    /// The distinct mutation operators, sorted.
    pub operators: Vec<OperatorRef>,
    /// The task's family.
    pub family: Family,
}

/// A task's level and score, as `task.json` records them (the features behind the score
/// are in `solution.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Difficulty {
    /// The level consumers use: the ladder's, or the empirical one after a curriculum
    /// refresh re-levelled the task.
    pub level: Level,
    /// The first rung of the baseline ladder that solves the task.
    pub structural_level: Level,
    /// In [0, 1], 3 decimals: the level's base plus weighted features.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub score: f64,
}

/// The first rung of the ladder that solves the task; hard when none does.
pub fn level(validation: &Validation) -> Level {
    validation.baselines.solving_rung().map_or(Level::Hard, Level::from)
}

/// The score for a level and features (formula in the module docs).
pub fn score(level: Level, f: &Features) -> f64 {
    let ratio = |value: usize, cap: usize| value.min(cap) as f64 / cap as f64;
    let base = match level {
        Level::Easy => 0.0,
        Level::Medium => 0.25,
        Level::Hard => 0.5,
    };
    let weakest = [f.failing_tests_ours, f.failing_tests_theirs].into_iter().filter(|n| *n > 0).min().unwrap_or(10);
    let operators = if f.operators.is_empty() {
        0.0
    } else {
        let mean = f.operators.iter().map(|o| o.get().subtlety()).sum::<f64>() / f.operators.len() as f64;
        ((f.operators.len() - 1) as f64 + mean).min(3.0) / 3.0
    };
    let raw = base
        + 0.08 * ratio(f.hunks.saturating_sub(1), 3)
        + 0.08 * ratio(f.conflicted_lines, 40)
        + 0.06 * ratio(f.conflicted_files.saturating_sub(1), 2)
        + 0.08 * ratio(f.files_outside_conflicts, 2)
        + 0.08 * (1.0 - ratio(weakest, 10))
        + 0.06 * operators
        + 0.06 * f.family.prior();
    (raw.clamp(0.0, 1.0) * 1000.0).round() / 1000.0
}

/// Levels and scores a task.
pub fn assess(validation: &Validation, features: &Features) -> Difficulty {
    let level = level(validation);
    Difficulty { level, structural_level: level, score: score(level, features) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(names: &[&str]) -> Vec<OperatorRef> {
        names.iter().map(|name| OperatorRef::parse(name).unwrap()).collect()
    }

    fn features() -> Features {
        Features {
            hunks: 1,
            conflicted_lines: 4,
            conflicted_files: 1,
            files_outside_conflicts: 0,
            failing_tests_ours: 3,
            failing_tests_theirs: 0,
            operators: ops(&["const-int"]),
            family: Family::DivergentEdit,
        }
    }

    #[test]
    fn score_grows_with_level_size_operators_and_family() {
        let f = features();
        // 0.08 * 4/40 + 0.08 * 0.7 = 0.064
        assert_eq!(score(Level::Easy, &f), 0.064);
        assert_eq!(score(Level::Hard, &f), 0.564);
        let subtle = Features { operators: ops(&["swap-operands", "rename-param"]), ..f.clone() };
        assert!(score(Level::Easy, &subtle) > score(Level::Easy, &f));
        let compose = Features { family: Family::ComposeEdits, ..f.clone() };
        assert_eq!(score(Level::Easy, &compose), 0.124);
        let big = Features {
            hunks: 4,
            conflicted_lines: 80,
            conflicted_files: 3,
            files_outside_conflicts: 2,
            failing_tests_ours: 1,
            // Two operators of subtlety 0.5 (any unknown name scored 0.5 before operators
            // carried their subtlety).
            operators: ops(&["binop-swap", "flip-compare", "swap-statements", "rename-param"]),
            family: Family::ComposeEdits,
            ..f
        };
        assert_eq!(score(Level::Hard, &big), 0.992);
    }
}
