//! The configs of a published dataset and the folders they read: which folder a task's
//! agent-facing record goes to ([`TaskConfig`]), which configs a version has
//! ([`configs`]) and the data-file glob of each ([`data_glob`]).
//!
//! ```text
//! default     data/tasks/*/<split>-*.jsonl        every task
//! easy        data/tasks/easy/<split>-*.jsonl     generated tasks of that level
//! medium      data/tasks/medium/<split>-*.jsonl
//! hard        data/tasks/hard/<split>-*.jsonl
//! real        data/tasks/real/<split>-*.jsonl     tasks of the projects' own history
//! solutions   data/solutions/<split>-*.jsonl      the answers of every task
//! ```
//!
//! A task of a history family (merge-replay, commit-replay: its solution records the
//! real commits it was made from) goes to `real` whatever its level; every other task
//! goes to its level's folder. This module does no I/O.

use std::collections::BTreeMap;

use super::records::Split;
use crate::difficulty::Level;
use crate::forge::{Family, Group};

/// The agent-facing config over every task folder.
pub(crate) const DEFAULT_CONFIG: &str = "default";
/// The config (and folder under [`TASKS_DATA`]) of the tasks made from real history.
pub(crate) const REAL_CONFIG: &str = "real";
/// The config of the solution records.
pub(crate) const SOLUTIONS_CONFIG: &str = "solutions";
/// The folder of the agent-facing records (one folder per [`TaskConfig`] inside).
pub(crate) const TASKS_DATA: &str = "data/tasks";
/// The folder of the solution records.
pub(crate) const SOLUTIONS_DATA: &str = "data/solutions";

/// The config a task's agent-facing record is published in besides `default`, and the
/// folder under [`TASKS_DATA`] it is written to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum TaskConfig {
    /// A generated task, by its level.
    Level(Level),
    /// A task made from a project's own history, whatever its level.
    Real,
}

impl TaskConfig {
    /// Every task config, in the order the card lists them.
    pub(crate) const ALL: [TaskConfig; 4] = [
        TaskConfig::Level(Level::Easy),
        TaskConfig::Level(Level::Medium),
        TaskConfig::Level(Level::Hard),
        TaskConfig::Real,
    ];

    /// The config of a task of `family` levelled `level`.
    pub fn of(family: Family, level: Level) -> TaskConfig {
        if family.group() == Group::History {
            TaskConfig::Real
        } else {
            TaskConfig::Level(level)
        }
    }

    /// The config's name, which is also its folder's.
    pub fn name(self) -> &'static str {
        match self {
            TaskConfig::Level(level) => level.name(),
            TaskConfig::Real => REAL_CONFIG,
        }
    }
}

/// The configs present: `default`, then every task config with at least one row, each
/// with the splits that have rows, and `solutions` (the splits of `default`).
pub(crate) fn configs(rows: &BTreeMap<(TaskConfig, Split), usize>) -> Vec<(String, Vec<Split>)> {
    let has = |config: Option<TaskConfig>, split: Split| {
        rows.iter().any(|((c, s), n)| *s == split && *n > 0 && config.is_none_or(|want| want == *c))
    };
    let mut out = Vec::new();
    let default_splits: Vec<Split> = Split::ALL.into_iter().filter(|s| has(None, *s)).collect();
    out.push((DEFAULT_CONFIG.to_string(), default_splits.clone()));
    for config in TaskConfig::ALL {
        let splits: Vec<Split> = Split::ALL.into_iter().filter(|s| has(Some(config), *s)).collect();
        if !splits.is_empty() {
            out.push((config.name().to_string(), splits));
        }
    }
    out.push((SOLUTIONS_CONFIG.to_string(), default_splits));
    out
}

/// The data-file glob of a config's split.
pub(crate) fn data_glob(config: &str, split: Split) -> String {
    match config {
        SOLUTIONS_CONFIG => format!("{SOLUTIONS_DATA}/{}-*.jsonl", split.name()),
        DEFAULT_CONFIG => format!("{TASKS_DATA}/*/{}-*.jsonl", split.name()),
        folder => format!("{TASKS_DATA}/{folder}/{}-*.jsonl", split.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case: what it is, the rows, and the configs with their splits.
    type Case<'a> = (&'a str, &'a BTreeMap<(TaskConfig, Split), usize>, Vec<(&'a str, Vec<Split>)>);

    #[test]
    fn configs_list_only_task_configs_and_splits_with_rows() {
        use Split::{Test, Train};
        let generated = BTreeMap::from([
            ((TaskConfig::Level(Level::Easy), Train), 3),
            ((TaskConfig::Level(Level::Hard), Train), 2),
            ((TaskConfig::Level(Level::Hard), Test), 1),
            ((TaskConfig::Level(Level::Medium), Test), 0),
        ]);
        let mut mixed = generated.clone();
        mixed.insert((TaskConfig::Real, Test), 4);
        let real_only = BTreeMap::from([((TaskConfig::Real, Train), 2)]);
        let cases: [Case; 3] = [
            (
                "generated only",
                &generated,
                vec![
                    ("default", vec![Train, Test]),
                    ("easy", vec![Train]),
                    ("hard", vec![Train, Test]),
                    ("solutions", vec![Train, Test]),
                ],
            ),
            (
                "generated and real",
                &mixed,
                vec![
                    ("default", vec![Train, Test]),
                    ("easy", vec![Train]),
                    ("hard", vec![Train, Test]),
                    ("real", vec![Test]),
                    ("solutions", vec![Train, Test]),
                ],
            ),
            (
                "real only",
                &real_only,
                vec![("default", vec![Train]), ("real", vec![Train]), ("solutions", vec![Train])],
            ),
        ];
        for (what, rows, want) in cases {
            let want: Vec<(String, Vec<Split>)> = want.into_iter().map(|(n, s)| (n.to_string(), s)).collect();
            assert_eq!(configs(rows), want, "{what}");
        }
    }

    #[test]
    fn globs_and_the_config_of_a_task() {
        for (config, split, want) in [
            ("default", Split::Test, "data/tasks/*/test-*.jsonl"),
            ("medium", Split::Train, "data/tasks/medium/train-*.jsonl"),
            ("real", Split::Test, "data/tasks/real/test-*.jsonl"),
            ("solutions", Split::Train, "data/solutions/train-*.jsonl"),
        ] {
            assert_eq!(data_glob(config, split), want);
        }
        assert_eq!(TaskConfig::of(Family::MergeReplay, Level::Easy), TaskConfig::Real);
        assert_eq!(TaskConfig::of(Family::StripRestore, Level::Hard), TaskConfig::Level(Level::Hard));
        for family in Family::ALL {
            let real = TaskConfig::of(family, Level::Medium) == TaskConfig::Real;
            assert_eq!(real, family.group() == Group::History, "{family}");
        }
        let names: Vec<&str> = TaskConfig::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, ["easy", "medium", "hard", "real"]);
    }
}
