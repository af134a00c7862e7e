//! The results file: one JSON object per line,
//! `{"task_id": str, "success": bool, "reward"?: number, "agent"?: str, "run"?: str}`,
//! several lines per task allowed. Blank lines are skipped and other keys ignored:
//! `mergeforge eval --results` writes these lines with `level`, `family`,
//! `exit_code`, `timed_out` and `wall_s` besides (`src/agent/transcript.rs`).
//!
//! Every problem is reported with its line number, all at once: a line that is not a
//! JSON object, a missing or mistyped field, an id the dataset does not have, and a
//! duplicate run (a second line with the same task, agent and `run`; lines without
//! `run` are separate attempts).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// One attempt at a task.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attempt {
    pub(crate) task_id: String,
    pub(crate) success: bool,
    pub(crate) reward: Option<f64>,
    pub(crate) agent: Option<String>,
    pub(crate) run: Option<String>,
    /// 1-based line in the results file.
    pub(crate) line: usize,
}

/// Attempts and successes of one task.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Stats {
    pub(crate) attempts: usize,
    pub(crate) successes: usize,
    reward_sum: f64,
    rewards: usize,
}

impl Stats {
    pub(crate) fn add(&mut self, attempt: &Attempt) {
        self.attempts += 1;
        self.successes += usize::from(attempt.success);
        if let Some(reward) = attempt.reward {
            self.reward_sum += reward;
            self.rewards += 1;
        }
    }

    /// successes / attempts, `None` without attempts.
    pub(crate) fn solve_rate(&self) -> Option<f64> {
        (self.attempts > 0).then(|| self.successes as f64 / self.attempts as f64)
    }

    pub(crate) fn mean_reward(&self) -> Option<f64> {
        (self.rewards > 0).then(|| self.reward_sum / self.rewards as f64)
    }
}

/// Reads and checks the results file against the dataset's task ids.
pub(crate) fn read(path: &Path, known: &BTreeSet<String>, dataset: &str) -> Result<Vec<Attempt>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading results file {}", path.display()))?;
    let mut attempts = Vec::new();
    let mut problems = Vec::new();
    let mut runs: BTreeMap<(String, String, String), usize> = BTreeMap::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim().is_empty() {
            continue;
        }
        let attempt = match parse_line(line, number) {
            Ok(attempt) => attempt,
            Err(problem) => {
                problems.push(format!("{}:{number}: {problem}", path.display()));
                continue;
            }
        };
        if !known.contains(&attempt.task_id) {
            problems.push(format!(
                "{}:{number}: unknown task id `{}` (not in {dataset})",
                path.display(),
                attempt.task_id
            ));
            continue;
        }
        if let Some(run) = &attempt.run {
            let agent = attempt.agent.clone().unwrap_or_default();
            let key = (attempt.task_id.clone(), agent.clone(), run.clone());
            if let Some(first) = runs.get(&key) {
                problems.push(format!(
                    "{}:{number}: duplicate run `{run}` of task `{}` by agent `{agent}` (first on line {first})",
                    path.display(),
                    attempt.task_id
                ));
                continue;
            }
            runs.insert(key, number);
        }
        attempts.push(attempt);
    }
    if !problems.is_empty() {
        const SHOWN: usize = 50;
        let more = problems.len().saturating_sub(SHOWN);
        let mut message = format!(
            "{}: {} problem{} in the results file; nothing was written\n{}",
            path.display(),
            problems.len(),
            if problems.len() == 1 { "" } else { "s" },
            problems.iter().take(SHOWN).cloned().collect::<Vec<_>>().join("\n")
        );
        if more > 0 {
            message.push_str(&format!("\n... and {more} more"));
        }
        bail!(message);
    }
    if attempts.is_empty() {
        bail!(
            "{}: no results (one JSON object per line, e.g. {{\"task_id\": \"...\", \"success\": true}})",
            path.display()
        );
    }
    Ok(attempts)
}

fn parse_line(line: &str, number: usize) -> std::result::Result<Attempt, String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not JSON ({e})"))?;
    let Value::Object(map) = value else {
        return Err("not a JSON object".into());
    };
    let task_id = match map.get("task_id") {
        Some(Value::String(id)) if !id.is_empty() => id.clone(),
        Some(_) => return Err("`task_id` must be a non-empty string".into()),
        None => return Err("missing `task_id`".into()),
    };
    let success = match map.get("success") {
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("`success` must be true or false".into()),
        None => return Err("missing `success`".into()),
    };
    let reward = match map.get("reward") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => Some(n.as_f64().filter(|r| r.is_finite()).ok_or("`reward` must be a finite number")?),
        Some(_) => return Err("`reward` must be a number".into()),
    };
    let text = |key: &str| match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("`{key}` must be a string")),
    };
    Ok(Attempt { task_id, success, reward, agent: text("agent")?, run: text("run")?, line: number })
}

/// Stats per task id.
pub(crate) fn stats(attempts: &[Attempt]) -> BTreeMap<String, Stats> {
    let mut out: BTreeMap<String, Stats> = BTreeMap::new();
    for attempt in attempts {
        out.entry(attempt.task_id.clone()).or_default().add(attempt);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_reported_with_its_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let lines = [
            r#"{"task_id": "a", "success": true, "agent": "x", "run": "1", "reward": 0.5}"#,
            "",
            "not json",
            r#"{"task_id": "zz", "success": true}"#,
            r#"{"task_id": "a", "success": "yes"}"#,
            r#"{"task_id": "a", "success": false, "agent": "x", "run": "1"}"#,
            r#"{"task_id": "a", "success": false}"#,
            r#"[1]"#,
        ];
        std::fs::write(&path, lines.join("\n")).unwrap();
        let known: BTreeSet<String> = ["a".to_string()].into();
        let message = format!("{:#}", read(&path, &known, "d 1.0.0").unwrap_err());
        for needle in [
            ":3: not JSON",
            ":4: unknown task id `zz`",
            ":5: `success` must be",
            ":6: duplicate run `1`",
            "(first on line 1)",
            ":8: not a JSON object",
            "5 problems",
        ] {
            assert!(message.contains(needle), "{needle} not in {message}");
        }
        std::fs::write(&path, [lines[0], lines[6]].join("\n")).unwrap();
        let attempts = read(&path, &known, "d").unwrap();
        let stats = &stats(&attempts)["a"];
        assert_eq!(
            (stats.attempts, stats.successes, stats.solve_rate(), stats.mean_reward()),
            (2, 1, Some(0.5), Some(0.5))
        );
    }
}
