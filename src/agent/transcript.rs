//! What is kept of an agent's episode: its transcript folder (`--transcripts DIR`:
//! `DIR/<task id>/` with `stdout.txt`, `stderr.txt`, `diff.patch` — the final tree
//! against the one the agent started from — and `episode.json`, the verdict and the
//! run), and its line in a results file (`--results FILE`) that `mergeforge curriculum`
//! reads ([`crate::curriculum::results`]). Neither holds the values of the variables
//! passed through to the agent, nor its command's arguments.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use super::episode::AgentEpisode;
use crate::snapshot::{self, Snapshot};

/// The unified diff from `start` to `end` (paths relative to the repository; new and
/// deleted files included), made by `git diff --no-index` over the files that differ.
pub(crate) fn diff(start: &Snapshot, end: &Snapshot) -> Result<String> {
    let paths: BTreeSet<&String> = start.keys().chain(end.keys()).collect();
    let changed = |path: &&String| start.get(*path) != end.get(*path);
    let changed: BTreeSet<&String> = paths.into_iter().filter(changed).collect();
    if changed.is_empty() {
        return Ok(String::new());
    }
    let only = |tree: &Snapshot| -> Snapshot {
        tree.iter().filter(|(p, _)| changed.contains(p)).map(|(p, d)| (p.clone(), d.clone())).collect()
    };
    let dir = tempfile::tempdir().context("a folder for the diff")?;
    for (name, tree) in [("a", only(start)), ("b", only(end))] {
        std::fs::create_dir(dir.path().join(name))?;
        snapshot::materialise(&tree, &dir.path().join(name))?;
    }
    let output = Command::new("git")
        .current_dir(dir.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        // The folders are named `a` and `b`: without prefixes, paths read `a/calc.py`.
        .args(["diff", "--no-index", "--no-color", "--no-ext-diff", "--no-prefix", "a", "b"])
        .output()
        .context("running git diff: is git installed?")?;
    // 1: the trees differ (they do); anything else is git failing.
    if output.status.code() != Some(1) {
        bail!("git diff --no-index failed: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The episode as `eval --json` and `episode.json` show it: the verdict, then what the
/// agent did.
pub(crate) fn episode_json(episode: &AgentEpisode) -> Value {
    let mut value = serde_json::to_value(&episode.result).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        let run = episode.run.as_ref();
        map.insert("exit_code".into(), json!(run.and_then(|r| r.exit_code)));
        map.insert("timed_out".into(), json!(run.is_some_and(|r| r.timed_out)));
        map.insert("wall_s".into(), json!(episode.wall_seconds()));
    }
    value
}

/// Writes `DIR/<task id>/`: `stdout.txt`, `stderr.txt`, `diff.patch`, `episode.json`.
pub(crate) fn write(dir: &Path, episode: &AgentEpisode) -> Result<()> {
    let folder = dir.join(&episode.result.task_id);
    std::fs::create_dir_all(&folder).with_context(|| format!("creating {}", folder.display()))?;
    let run = episode.run.as_ref();
    let json = serde_json::to_string_pretty(&episode_json(episode))? + "\n";
    let diff = diff(&episode.start, &episode.tree)
        .with_context(|| format!("task {}: the final diff", episode.result.task_id))?;
    let files = [
        ("stdout.txt", run.map_or("", |r| r.stdout.as_str())),
        ("stderr.txt", run.map_or("", |r| r.stderr.as_str())),
        ("diff.patch", diff.as_str()),
        ("episode.json", json.as_str()),
    ];
    for (name, text) in files {
        write_file(&folder.join(name), text.as_bytes())?;
    }
    Ok(())
}

/// One results line (`curriculum`'s format, with eval's own keys): `task_id`,
/// `success` (the environment's judgement), `reward`, `agent` (the label), `run`,
/// `level`, `family`, `exit_code`, `timed_out`, `wall_s`.
pub(crate) fn results_line(episode: &AgentEpisode, agent: &str, run: &str) -> Value {
    let r = &episode.result;
    let agent_run = episode.run.as_ref();
    json!({
        "task_id": r.task_id,
        "success": r.solved,
        "reward": crate::env::reward::round(r.reward),
        "agent": agent,
        "run": run,
        "level": r.level,
        "family": r.family,
        "exit_code": agent_run.and_then(|a| a.exit_code),
        "timed_out": agent_run.is_some_and(|a| a.timed_out),
        "wall_s": episode.wall_seconds(),
    })
}

/// Appends `lines` to the results file `path` (its old lines kept; temp file, then
/// rename).
pub(crate) fn append_results(path: &Path, lines: &[Value]) -> Result<()> {
    let mut text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("reading results file {}", path.display())),
    };
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for line in lines {
        text.push_str(&line.to_string());
        text.push('\n');
    }
    write_file(path, text.as_bytes())
}

/// Writes `bytes` to `path` through a temporary file beside it.
fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let partial = path.with_file_name(format!(".{name}.partial"));
    std::fs::write(&partial, bytes).with_context(|| format!("writing {}", partial.display()))?;
    std::fs::rename(&partial, path).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn tree(files: &[(&str, &str)]) -> Snapshot {
        files.iter().map(|(p, t)| (p.to_string(), Arc::from(t.as_bytes()))).collect()
    }

    #[test]
    fn the_diff_shows_changed_new_and_deleted_files_only() {
        let start = tree(&[
            ("calc.py", "a\n<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> theirs\n"),
            ("same.py", "s\n"),
            ("gone.py", "g\n"),
        ]);
        let end = tree(&[("calc.py", "a\nx\n"), ("same.py", "s\n"), ("pkg/new.py", "n\n")]);
        let text = diff(&start, &end).unwrap();
        assert!(text.contains("diff --git a/calc.py b/calc.py"), "{text}");
        assert!(text.contains("-<<<<<<< HEAD") && text.contains("+++ b/pkg/new.py"), "{text}");
        assert!(text.contains("--- a/gone.py") && !text.contains("same.py"), "{text}");
        assert_eq!(diff(&start, &start).unwrap(), "");
    }
}
