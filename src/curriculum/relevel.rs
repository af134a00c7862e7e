//! What a refresh does to one task, from its attempts (the thresholds are the
//! constants below; the first rule that applies decides):
//!
//! 1. solved at least [`RETIRE_RATE`] of at least [`RETIRE_MIN_ATTEMPTS`] attempts →
//!    **retired** (moved to the retired split);
//! 2. never solved over at least [`FRONTIER_MIN_ATTEMPTS`] attempts → **frontier-hard**
//!    (stays, level hard);
//! 3. at least [`RELEVEL_MIN_ATTEMPTS`] attempts → **re-levelled** by solve rate: easy
//!    from [`EASY_RATE`], hard below [`HARD_RATE`], medium between;
//! 4. fewer attempts → unchanged (level and status as in the parent version).
//!
//! The ladder's level is kept in `difficulty.structural_level` whatever happens.

use super::results::Stats;
use crate::bundle::task::CurriculumStatus;
use crate::difficulty::Level;

pub(crate) const RETIRE_MIN_ATTEMPTS: usize = 4;
pub(crate) const RETIRE_RATE: f64 = 0.9;
pub(crate) const FRONTIER_MIN_ATTEMPTS: usize = 8;
pub(crate) const RELEVEL_MIN_ATTEMPTS: usize = 2;
pub(crate) const EASY_RATE: f64 = 0.7;
pub(crate) const HARD_RATE: f64 = 0.3;

/// The decision for one task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decision {
    pub(crate) status: CurriculumStatus,
    pub(crate) level: Level,
}

/// Decides a task's status and level from its stats, its level and status so far.
pub(crate) fn decide(stats: &Stats, level: Level, status: CurriculumStatus) -> Decision {
    let rate = stats.solve_rate().unwrap_or(0.0);
    if stats.attempts >= RETIRE_MIN_ATTEMPTS && rate >= RETIRE_RATE {
        return Decision { status: CurriculumStatus::Retired, level };
    }
    if stats.attempts >= FRONTIER_MIN_ATTEMPTS && stats.successes == 0 {
        return Decision { status: CurriculumStatus::FrontierHard, level: Level::Hard };
    }
    if stats.attempts >= RELEVEL_MIN_ATTEMPTS {
        return Decision { status: CurriculumStatus::Active, level: empirical_level(rate) };
    }
    let status = if status == CurriculumStatus::FrontierHard { status } else { CurriculumStatus::Active };
    Decision { status, level }
}

/// The level a solve rate stands for.
pub(crate) fn empirical_level(rate: f64) -> Level {
    if rate >= EASY_RATE {
        Level::Easy
    } else if rate >= HARD_RATE {
        Level::Medium
    } else {
        Level::Hard
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curriculum::results::Attempt;

    fn stats(successes: usize, attempts: usize) -> Stats {
        let mut s = Stats::default();
        for i in 0..attempts {
            s.add(&Attempt {
                task_id: "t".into(),
                success: i < successes,
                reward: None,
                agent: None,
                run: None,
                line: i + 1,
            });
        }
        s
    }

    #[test]
    fn thresholds() {
        use CurriculumStatus::*;
        let d = |s: usize, n: usize| decide(&stats(s, n), Level::Medium, Active);
        assert_eq!(d(4, 4), Decision { status: Retired, level: Level::Medium });
        assert_eq!(d(9, 10), Decision { status: Retired, level: Level::Medium });
        assert_eq!(d(3, 3), Decision { status: Active, level: Level::Easy });
        assert_eq!(d(0, 8), Decision { status: FrontierHard, level: Level::Hard });
        assert_eq!(d(0, 7), Decision { status: Active, level: Level::Hard });
        assert_eq!(d(4, 8), Decision { status: Active, level: Level::Medium });
        assert_eq!(d(1, 1), Decision { status: Active, level: Level::Medium });
        assert_eq!(
            decide(&stats(0, 0), Level::Hard, FrontierHard),
            Decision { status: FrontierHard, level: Level::Hard }
        );
    }
}
