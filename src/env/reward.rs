//! The reward: weights (loadable from TOML), the per-step components, and the
//! bookkeeping that keeps an episode's total bounded by the stated maximum.
//!
//! | component | paid |
//! |---|---|
//! | `markers` | `markers_removed` shared among the task's conflict blocks: each block below the fewest seen so far in the episode pays its share |
//! | `syntax` | `syntax_invalid` on every step that leaves a marker-free Python file unparseable; otherwise `syntax_valid` once, the first time every Python file parses |
//! | `tests` | `tests_pass` once, the first time the task is solved: the graded tests pass (see [`super::grader`]) with no conflict marker left |
//!
//! The `duplication` component of earlier versions is retired: the judgement's static
//! findings against gold ([`crate::judge::findings`]) decide whether a resolution that
//! repeats logic solves its task, and a config naming it is refused
//! ([`RETIRED_DUPLICATION`]).
//!
//! Bonuses are paid once and removals only below the low-water mark, so no loop of
//! edits can collect more than [`RewardWeights::max_reward`]. The default weights pay
//! for solving: whatever the number of blocks (none on a semantic task), an episode that
//! does not solve its task earns at most [`UNSOLVED_SHARE`] of the maximum
//! ([`RewardWeights::unsolved_ceiling`]). [`RewardWeights::binary`] pays 1 for solving
//! and nothing else. This module computes numbers from facts; it never looks at files
//! itself.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

/// Reward weights. Every field is optional in the TOML; missing ones keep the default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RewardWeights {
    /// For removing every conflict block, shared equally among the task's blocks.
    pub(crate) markers_removed: f64,
    /// Once, when every Python file parses.
    pub(crate) syntax_valid: f64,
    /// Each step that leaves a marker-free Python file unparseable.
    pub(crate) syntax_invalid: f64,
    /// Once, when the task is solved (the graded tests pass, no marker left).
    pub(crate) tests_pass: f64,
}

impl Default for RewardWeights {
    fn default() -> Self {
        RewardWeights { markers_removed: 0.10, syntax_valid: 0.05, syntax_invalid: -0.10, tests_pass: 1.00 }
    }
}

/// The one-line error for a reward config that names the retired `duplication`
/// component.
pub(crate) const RETIRED_DUPLICATION: &str =
    "reward component `duplication` was retired in favour of the judgement's static findings; remove it";

/// The most the default weights pay an episode that does not solve its task, as a share
/// of the task's maximum.
pub(crate) const UNSOLVED_SHARE: f64 = 0.25;

impl RewardWeights {
    /// `--reward binary`: 1 for solving the task, nothing else.
    pub fn binary() -> Self {
        RewardWeights { markers_removed: 0.0, syntax_valid: 0.0, syntax_invalid: 0.0, tests_pass: 1.0 }
    }

    /// Reads weights from a TOML file (`--reward-config`).
    pub(crate) fn load(path: &Path) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("{}: cannot read the reward config", path.display()))?;
        Self::from_toml(&text).with_context(|| format!("{}: invalid reward config", path.display()))
    }

    pub(crate) fn from_toml(text: &str) -> Result<Self> {
        let table: toml::Table = toml::from_str(text).map_err(|e| anyhow::anyhow!("{}", e.message()))?;
        anyhow::ensure!(!table.contains_key("duplication"), "{RETIRED_DUPLICATION}");
        let weights: RewardWeights = toml::from_str(text).map_err(|e| anyhow::anyhow!("{}", e.message()))?;
        for (name, value) in weights.named() {
            anyhow::ensure!(value.is_finite(), "{name} must be a finite number");
        }
        Ok(weights)
    }

    fn named(&self) -> [(&'static str, f64); 4] {
        [
            ("markers_removed", self.markers_removed),
            ("syntax_valid", self.syntax_valid),
            ("syntax_invalid", self.syntax_invalid),
            ("tests_pass", self.tests_pass),
        ]
    }

    /// The most an episode can earn on a task with `blocks` conflict blocks.
    pub fn max_reward(&self, blocks: usize) -> f64 {
        round(self.unsolved_ceiling(blocks) + self.tests_pass.max(0.0))
    }

    /// The most an episode that does not solve a task with `blocks` conflict blocks can
    /// earn: every marker removed, every file parsing.
    pub(crate) fn unsolved_ceiling(&self, blocks: usize) -> f64 {
        let markers = if blocks > 0 { self.markers_removed.max(0.0) } else { 0.0 };
        round(markers + self.syntax_valid.max(0.0))
    }

    /// What removing `removed` of `blocks` blocks has paid in all, exactly
    /// `markers_removed` once every block is gone.
    fn markers_paid(&self, removed: usize, blocks: usize) -> f64 {
        if blocks == 0 {
            return 0.0;
        }
        round(self.markers_removed * removed.min(blocks) as f64 / blocks as f64)
    }
}

/// One step's reward, by component (each rounded to 4 decimals).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RewardComponents {
    pub markers: f64,
    pub syntax: f64,
    pub tests: f64,
}

impl RewardComponents {
    pub(crate) fn total(&self) -> f64 {
        round(self.markers + self.syntax + self.tests)
    }
}

/// What a step left behind, as the reward needs it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepFacts {
    /// Conflict blocks left in the conflicted files.
    pub(crate) blocks: usize,
    /// Some Python file without conflict markers does not parse.
    pub(crate) broken_python: bool,
    /// Every Python file parses (so none has markers).
    pub(crate) all_python_parses: bool,
    /// The task is solved after the step: the graded tests pass and no marker is left.
    pub(crate) solved: bool,
}

/// The once-only parts of an episode's reward.
#[derive(Debug, Clone)]
pub(crate) struct RewardLedger {
    weights: RewardWeights,
    initial_blocks: usize,
    fewest_blocks: usize,
    syntax_paid: bool,
    tests_paid: bool,
    total: f64,
}

impl RewardLedger {
    pub(crate) fn new(weights: RewardWeights, initial_blocks: usize) -> Self {
        RewardLedger {
            weights,
            initial_blocks,
            fewest_blocks: initial_blocks,
            syntax_paid: false,
            tests_paid: false,
            total: 0.0,
        }
    }

    /// Pays one step.
    pub(crate) fn pay(&mut self, facts: &StepFacts) -> RewardComponents {
        let w = &self.weights;
        let paid_before = w.markers_paid(self.initial_blocks - self.fewest_blocks, self.initial_blocks);
        self.fewest_blocks = self.fewest_blocks.min(facts.blocks);
        let paid_now = w.markers_paid(self.initial_blocks - self.fewest_blocks, self.initial_blocks);
        let syntax = if facts.broken_python {
            w.syntax_invalid
        } else if facts.all_python_parses && !self.syntax_paid {
            self.syntax_paid = true;
            w.syntax_valid
        } else {
            0.0
        };
        let tests = if facts.solved && !self.tests_paid {
            self.tests_paid = true;
            w.tests_pass
        } else {
            0.0
        };
        let components =
            RewardComponents { markers: round(paid_now - paid_before), syntax: round(syntax), tests: round(tests) };
        self.total = round(self.total + components.total());
        components
    }

    /// The sum of every step's reward so far.
    pub(crate) fn total(&self) -> f64 {
        self.total
    }
}

/// Rounds to 4 decimals, so that sums of weights compare exactly.
pub fn round(value: f64) -> f64 {
    (value * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(blocks: usize) -> StepFacts {
        StepFacts { blocks, broken_python: false, all_python_parses: false, solved: false }
    }

    #[test]
    fn gold_path_reaches_the_maximum() {
        let weights = RewardWeights::default();
        let max = weights.max_reward(3);
        assert_eq!(max, 1.15);
        let mut ledger = RewardLedger::new(weights, 3);
        assert_eq!(ledger.pay(&facts(2)).markers, 0.0333);
        let last = ledger.pay(&StepFacts { all_python_parses: true, solved: true, ..facts(0) });
        assert_eq!(last, RewardComponents { markers: 0.0667, syntax: 0.05, tests: 1.0 });
        assert_eq!(ledger.total(), max);
    }

    #[test]
    fn an_unsolved_episode_earns_at_most_a_quarter() {
        let weights = RewardWeights::default();
        for blocks in 0..=200 {
            let ceiling = weights.unsolved_ceiling(blocks);
            assert!(ceiling <= UNSOLVED_SHARE * weights.max_reward(blocks), "{blocks} blocks: {ceiling}");
            // Everything but solving, paid in full.
            let mut ledger = RewardLedger::new(weights.clone(), blocks);
            ledger.pay(&StepFacts { all_python_parses: true, ..facts(0) });
            ledger.pay(&StepFacts { all_python_parses: true, ..facts(0) });
            assert_eq!(ledger.total(), ceiling, "{blocks} blocks");
        }
        assert_eq!(weights.max_reward(0), 1.05, "a semantic task: nothing to remove");
    }

    #[test]
    fn binary_pays_one_for_solving_only() {
        let mut ledger = RewardLedger::new(RewardWeights::binary(), 2);
        assert_eq!(RewardWeights::binary().max_reward(2), 1.0);
        assert_eq!(ledger.pay(&StepFacts { all_python_parses: true, ..facts(0) }).total(), 0.0);
        assert_eq!(ledger.pay(&StepFacts { broken_python: true, ..facts(0) }).total(), 0.0);
        assert_eq!(ledger.pay(&StepFacts { solved: true, ..facts(0) }).total(), 1.0);
        assert_eq!(ledger.pay(&StepFacts { solved: true, ..facts(0) }).total(), 0.0);
        assert_eq!(ledger.total(), 1.0);
    }

    #[test]
    fn re_adding_markers_pays_nothing_twice() {
        let mut ledger = RewardLedger::new(RewardWeights::default(), 1);
        assert_eq!(ledger.pay(&facts(0)).markers, 0.10);
        assert_eq!(ledger.pay(&facts(1)).markers, 0.0);
        assert_eq!(ledger.pay(&facts(0)).markers, 0.0);
    }

    #[test]
    fn broken_python_costs_every_step() {
        let mut ledger = RewardLedger::new(RewardWeights::default(), 1);
        let broken = StepFacts { broken_python: true, ..facts(0) };
        assert_eq!(ledger.pay(&broken).syntax, -0.1);
        assert_eq!(ledger.pay(&broken).syntax, -0.1);
        assert_eq!(ledger.pay(&StepFacts { all_python_parses: true, ..facts(0) }).syntax, 0.05);
        assert_eq!(ledger.pay(&StepFacts { all_python_parses: true, ..facts(0) }).syntax, 0.0);
    }

    #[test]
    fn toml_overrides_and_rejects_unknown_keys() {
        let weights = RewardWeights::from_toml("tests_pass = 2.0\n").unwrap();
        assert_eq!(weights.tests_pass, 2.0);
        assert_eq!(weights.markers_removed, 0.10);
        assert!(RewardWeights::from_toml("test_pass = 1.0\n").is_err());
        assert!(RewardWeights::from_toml("marker_removed = 0.15\n").is_err(), "the old per-block key");
        let retired = RewardWeights::from_toml("duplication = -0.2\n").unwrap_err().to_string();
        assert_eq!(retired, RETIRED_DUPLICATION);
    }
}
