//! Graders checked per task, the OpenEnv validation proposal's rule applied at generation
//! through the environment's own episode code: every baseline agent of `eval` plays one
//! episode of the task; `gold` must reach the maximum reward, and every other agent
//! (`noop` and the resolvers' agents: `ours`, `theirs`, `union`, `tokens`) must earn at
//! most [`UNSOLVED_SHARE`] of it unless it solves the task. The scores and gold's
//! passing test ids go to `solution.json` ([`GraderCheck`]), so a served episode never
//! runs gold to learn what to require.

use std::sync::Arc;

use super::agents;
use super::config::Settings;
use super::dataset::TaskEntry;
use super::eval::{self, EpisodeResult};
use super::reward::UNSOLVED_SHARE;
use crate::bundle::solution::{AgentScore, GraderCheck};

/// A check's scores, and why the task fails it (`None`: it passes).
#[derive(Debug, Clone)]
pub(crate) struct CheckOutcome {
    pub(crate) check: GraderCheck,
    pub(crate) failure: Option<String>,
}

/// Plays every baseline agent on `entry` (its solution without a recorded check: gold's
/// passing ids come from one run of gold, kept in the entry's gold cache).
pub(crate) fn check(settings: &Arc<Settings>, entry: &Arc<TaskEntry>) -> CheckOutcome {
    // Gold first: its episode runs gold once, and the others' grading reuses that run.
    let gold = eval::play_with(settings, agents::GOLD, entry);
    let played: Vec<(&str, EpisodeResult)> = agents::names()
        .into_iter()
        .map(|name| (name, if name == agents::GOLD { gold.clone() } else { eval::play_with(settings, name, entry) }))
        .collect();
    let failure = played.iter().find_map(|(name, result)| failure(name, result));
    let agents = played.iter().map(|(name, result)| score(name, result)).collect();
    let gold_passing = entry.gold.cached().map(|gold| gold.passing.iter().cloned().collect()).unwrap_or_default();
    CheckOutcome { check: GraderCheck { agents, gold_passing }, failure }
}

/// Why `agent`'s episode breaks the rule, if it does.
fn failure(agent: &str, result: &EpisodeResult) -> Option<String> {
    if let Some(error) = &result.error {
        return Some(format!("the {agent} agent's episode failed: {error}"));
    }
    if agent == agents::GOLD {
        return (!result.reached_max || !result.solved).then(|| {
            format!(
                "the gold agent earned {:.3} of {:.3} and solved: {}",
                result.reward, result.max_reward, result.solved
            )
        });
    }
    let ceiling = UNSOLVED_SHARE * result.max_reward + 1e-9;
    (!result.solved && result.reward > ceiling).then(|| {
        format!(
            "the {agent} agent earned {:.3} of {:.3} without solving the task (more than {UNSOLVED_SHARE} of it)",
            result.reward, result.max_reward
        )
    })
}

fn score(agent: &str, result: &EpisodeResult) -> AgentScore {
    let share = if result.max_reward > 0.0 { result.reward / result.max_reward } else { 0.0 };
    AgentScore { agent: agent.to_string(), share: (share * 1000.0).round() / 1000.0, solved: result.solved }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(reward: f64, solved: bool) -> EpisodeResult {
        EpisodeResult {
            task_id: "t".into(),
            level: crate::difficulty::Level::Easy,
            family: crate::forge::Family::ALL[0],
            steps: 1,
            reward,
            max_reward: 1.2,
            reached_max: (reward - 1.2).abs() < 1e-9,
            markers_remaining: 0,
            syntax_valid: true,
            tests_passing: solved,
            solved,
            tests: None,
            error: None,
            reset_time: Default::default(),
            step_overheads: Vec::new(),
        }
    }

    #[test]
    fn gold_must_reach_the_maximum_and_others_a_quarter_unless_they_solve() {
        assert_eq!(failure("gold", &result(1.2, true)), None);
        assert!(failure("gold", &result(1.1, true)).is_some());
        assert_eq!(failure("ours", &result(0.3, false)), None);
        assert!(failure("ours", &result(0.31, false)).unwrap().contains("without solving"));
        assert_eq!(failure("union", &result(1.2, true)), None);
        let mut broken = result(0.0, false);
        broken.error = Some("reset failed".into());
        assert!(failure("noop", &broken).unwrap().contains("reset failed"));
    }

    #[test]
    fn shares_are_rounded_to_three_places() {
        assert_eq!(score("ours", &result(0.4, false)).share, 0.333);
        assert_eq!(score("gold", &result(1.2, true)).share, 1.0);
    }
}
