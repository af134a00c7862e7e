//! Levels and scores a validated task; quotas on levels and near-duplicate detection,
//! which decide what a dataset keeps.
//!
//! **Level** is the first rung of the baseline ladder that solves the task:
//!
//! | level | solved by |
//! |---|---|
//! | easy | a resolver taking one side for every hunk (rung [`Rung::Easy`]) |
//! | medium | a resolver combining the sides (rung [`Rung::Medium`]) |
//! | hard | none of them |
//!
//! Each resolver's rung is an item of its catalogue entry ([`crate::resolve::Resolver::rung`]);
//! `docs/reference/ladder.md` lists the rungs.
//!
//! A curriculum refresh may re-level a task by how often agents solve it; the ladder's
//! level is then kept as `structural_level` (for a generated task both are equal).
//!
//! **Score**, in [0, 1], rounded to 3 decimals: the level's base plus weighted features,
//! each scaled to [0, 1] (weights sum to 0.5, so the levels' ranges overlap only at
//! their edges). Every feature is something no mechanical rung sees — work the gold
//! merge does beyond picking and ordering the sides' lines — or how little the tests say:
//!
//! | part | weight |
//! |---|---|
//! | level: easy 0, medium 0.25, hard 0.5 | — |
//! | gold lines on no side (written, not picked): min(lines, 6) / 6 | 0.16 |
//! | gold edits files outside the conflicts: min(files, 2) / 2 | 0.10 |
//! | extra hunks: min(hunks − 1, 3) / 3 | 0.06 |
//! | extra conflicted files: min(files − 1, 2) / 2 | 0.06 |
//! | conflicted lines: min(lines, 40) / 40 | 0.04 |
//! | weak signal: 1 − min(fewest failing tests of a failing side, 10) / 10 | 0.08 |
//!
//! How the candidate was made (family, operators) is recorded with the features but is
//! not part of the score: two tasks that look the same to an agent score the same.

pub(crate) mod contract;
pub(crate) mod near_duplicate;
pub(crate) mod quota;
pub(crate) mod scale;

pub use scale::Scale;

use serde::{Deserialize, Serialize};

use crate::forge::Family;
use crate::intent::Kind;
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
    pub(crate) const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    /// The lowercase name, as serde writes it.
    pub(crate) fn name(self) -> &'static str {
        self.into()
    }

    pub(crate) fn parse(name: &str) -> Option<Level> {
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
    pub(crate) hunks: usize,
    /// Lines between the hunks' markers.
    pub(crate) conflicted_lines: usize,
    /// Files with conflicts.
    pub(crate) conflicted_files: usize,
    /// Files the gold merge changes outside the conflicts.
    pub(crate) files_outside_conflicts: usize,
    /// Lines of the gold files (non-blank, compared without surrounding whitespace) that
    /// no version of the file has: base, ours or theirs of a conflicted file, the clean
    /// merge of any other.
    pub(crate) novel_gold_lines: usize,
    /// Failing tests on ours alone.
    pub(crate) failing_tests_ours: usize,
    /// Failing tests on theirs alone.
    pub(crate) failing_tests_theirs: usize,
    /// The distinct mutation operators, sorted (how the task was made; not scored).
    pub(crate) operators: Vec<OperatorRef>,
    /// The task's family (not scored).
    pub(crate) family: Family,
    /// The contract kinds the sides make, sorted (not scored; absent when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) contract_kinds: Vec<Kind>,
    /// Calls of a unit whose contract a side changes, on gold's lines that neither side
    /// has: the call sites the merge must adapt (not scored; absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) call_sites_to_adapt: usize,
    /// Intents the two sides make between them (not scored; absent in versions
    /// written before sides had several commits).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) intents: usize,
    /// Commits of the two sides between them (not scored; absent as `intents`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) commits: usize,
    /// Files either side changes (not scored; absent as `intents`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) files_changed: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
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
    pub(crate) structural_level: Level,
    /// In [0, 1], 3 decimals: the level's base plus weighted features.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub(crate) score: f64,
}

/// The first rung of the ladder that solves the task; hard when none does.
pub(crate) fn level(validation: &Validation) -> Level {
    validation.baselines.solving_rung().map_or(Level::Hard, Level::from)
}

/// The score for a level and features (formula in the module docs).
pub(crate) fn score(level: Level, f: &Features) -> f64 {
    let ratio = |value: usize, cap: usize| value.min(cap) as f64 / cap as f64;
    let base = match level {
        Level::Easy => 0.0,
        Level::Medium => 0.25,
        Level::Hard => 0.5,
    };
    let weakest = [f.failing_tests_ours, f.failing_tests_theirs].into_iter().filter(|n| *n > 0).min().unwrap_or(10);
    let raw = base
        + 0.16 * ratio(f.novel_gold_lines, 6)
        + 0.10 * ratio(f.files_outside_conflicts, 2)
        + 0.06 * ratio(f.hunks.saturating_sub(1), 3)
        + 0.06 * ratio(f.conflicted_files.saturating_sub(1), 2)
        + 0.04 * ratio(f.conflicted_lines, 40)
        + 0.08 * (1.0 - ratio(weakest, 10));
    (raw.clamp(0.0, 1.0) * 1000.0).round() / 1000.0
}

/// The lines of `gold` (non-blank, trimmed) that none of `versions` has.
pub(crate) fn novel_lines(gold: &str, versions: &[&str]) -> usize {
    crate::snapshot::new_lines(gold, versions).into_iter().filter(|&new| new).count()
}

/// Levels and scores a task.
pub(crate) fn assess(validation: &Validation, features: &Features) -> Difficulty {
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
            novel_gold_lines: 0,
            failing_tests_ours: 3,
            failing_tests_theirs: 0,
            operators: ops(&["const-int"]),
            family: Family::DivergentEdit,
            contract_kinds: Vec::new(),
            call_sites_to_adapt: 0,
            intents: 2,
            commits: 2,
            files_changed: 1,
        }
    }

    #[test]
    fn score_grows_with_level_and_the_work_no_rung_sees() {
        let f = features();
        // 0.04 * 4/40 + 0.08 * 0.7 = 0.06
        assert_eq!(score(Level::Easy, &f), 0.06);
        assert_eq!(score(Level::Hard, &f), 0.56);
        let written = Features { novel_gold_lines: 3, ..f.clone() };
        assert_eq!(score(Level::Easy, &written), 0.14);
        // How the task was made does not count.
        let other = Features { family: Family::ComposeEdits, operators: ops(&["swap-operands"]), ..f.clone() };
        assert_eq!(score(Level::Easy, &other), score(Level::Easy, &f));
        let big = Features {
            hunks: 4,
            conflicted_lines: 80,
            conflicted_files: 3,
            files_outside_conflicts: 2,
            novel_gold_lines: 9,
            failing_tests_ours: 1,
            ..f
        };
        assert_eq!(score(Level::Hard, &big), 0.992);
    }

    #[test]
    fn novel_lines_are_those_no_version_has() {
        let base = "def f(a):\n    return a\n";
        let ours = "def f(a, b):\n    return a\n";
        let theirs = "def f(a):\n    return a + 1\n";
        let gold = "def f(a, b):\n\n    return a + b + 1\n";
        assert_eq!(novel_lines(gold, &[base, ours, theirs]), 1);
        assert_eq!(novel_lines(ours, &[base, ours, theirs]), 0);
    }
}
