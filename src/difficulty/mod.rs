//! Levels and scores a validated task.
//!
//! Level is the first rung of the baseline ladder that solves the task: **easy** when
//! taking ours or taking theirs passes, **medium** when a union of both sides (either
//! order) passes, **hard** when none does.
//!
//! Score, in [0, 1], rounded to 3 decimals:
//!
//! | part | weight |
//! |---|---|
//! | level: easy 0, medium 0.25, hard 0.5 | — |
//! | extra hunks: min(hunks − 1, 3) / 3 | 0.10 |
//! | conflicted lines: min(lines, 40) / 40 | 0.10 |
//! | extra conflicted files: min(files − 1, 2) / 2 | 0.10 |
//! | gold edits a file outside the conflicts | 0.10 |
//! | weak signal: 1 − min(fewest failing tests of a failing side, 10) / 10 | 0.10 |

use serde::{Deserialize, Serialize};

use crate::validate::Validation;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Easy,
    Medium,
    Hard,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }
}

/// What the score is computed from; recorded in `task.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Features {
    pub hunks: usize,
    pub conflicted_lines: usize,
    pub conflicted_files: usize,
    pub files_outside_conflicts: usize,
    pub failing_tests_ours: usize,
    pub failing_tests_theirs: usize,
    pub operators: Vec<String>,
    pub family: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Difficulty {
    pub level: Level,
    pub score: f64,
    pub features: Features,
}

/// The first rung of the ladder that solves the task.
pub fn level(validation: &Validation) -> Level {
    let b = &validation.baselines;
    if b.ours.passed || b.theirs.passed {
        Level::Easy
    } else if b.union.passed {
        Level::Medium
    } else {
        Level::Hard
    }
}

/// The score for a level and features (formula in the module docs).
pub fn score(level: Level, f: &Features) -> f64 {
    let ratio = |value: usize, cap: usize| value.min(cap) as f64 / cap as f64;
    let base = match level {
        Level::Easy => 0.0,
        Level::Medium => 0.25,
        Level::Hard => 0.5,
    };
    let failing: Vec<usize> =
        [f.failing_tests_ours, f.failing_tests_theirs].into_iter().filter(|n| *n > 0).collect();
    let weakest = failing.iter().copied().min().unwrap_or(10);
    let raw = base
        + 0.10 * ratio(f.hunks.saturating_sub(1), 3)
        + 0.10 * ratio(f.conflicted_lines, 40)
        + 0.10 * ratio(f.conflicted_files.saturating_sub(1), 2)
        + if f.files_outside_conflicts > 0 { 0.10 } else { 0.0 }
        + 0.10 * (1.0 - ratio(weakest, 10));
    (raw.clamp(0.0, 1.0) * 1000.0).round() / 1000.0
}

/// Levels and scores a task.
pub fn assess(validation: &Validation, features: Features) -> Difficulty {
    let level = level(validation);
    Difficulty { level, score: score(level, &features), features }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn features() -> Features {
        Features {
            hunks: 1,
            conflicted_lines: 4,
            conflicted_files: 1,
            files_outside_conflicts: 0,
            failing_tests_ours: 3,
            failing_tests_theirs: 0,
            operators: vec![],
            family: "divergent-edit".into(),
        }
    }

    #[test]
    fn score_grows_with_level_and_size() {
        let f = features();
        assert_eq!(score(Level::Easy, &f), 0.08);
        assert_eq!(score(Level::Hard, &f), 0.58);
        let big = Features { hunks: 4, conflicted_lines: 80, conflicted_files: 3, files_outside_conflicts: 1, ..f };
        assert_eq!(score(Level::Hard, &big), 0.97);
    }
}
