//! Real agent programs from PyPI, mini-swe-agent and aider, run through `mergeforge eval
//! --agent-cmd` with the exact commands docs/agents.md gives as tested, each against a
//! scripted model: `tests/data/agents/replay_server.py` on 127.0.0.1, started here,
//! replaying the agent's committed trajectory for each task (the model is scripted; the
//! agent programs, the sandbox and the grading are real). Every task must be graded
//! solved, its transcript written and its results line there, and the agent must have
//! asked the model for every reply of the trajectory and for nothing else.
//!
//! Each agent is installed from `tests/data/agents/<agent>/requirements.txt` (every
//! distribution pinned) by the project's own venv machinery, cached under
//! `~/.cache/mergeforge/venvs/`: the first run on a machine downloads some 700 MB per
//! agent and takes minutes, and says so. The first tier checks the server and the
//! trajectories (`agent_replay::`) and that docs/agents.md gives these commands.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

use crate::agent_replay::{agents_dir, trajectories, ReplayServer};
use crate::common::root;

/// A real agent program: its folder under `tests/data/agents/` and the shell lines
/// (bash) that run it on one task, word for word those of docs/agents.md. They read
/// `AGENT_VENV` (the agent's venv), `AGENT_MODEL`, `OPENAI_API_BASE`, `OPENAI_API_KEY`,
/// `TASK` and `OUT`, and find `mergeforge` on `PATH`.
pub struct RealAgent {
    pub name: &'static str,
    pub command: &'static str,
}

/// The two agents, as docs/agents.md gives them.
pub const AGENTS: [RealAgent; 2] = [
    RealAgent {
        name: "mini-swe-agent",
        command: r#"AGENT_CMD=$(cat <<'EOF'
sh -c 'MSWEA_CONFIGURED=true MSWEA_COST_TRACKING=ignore_errors exec "$AGENT_VENV/bin/python" -m minisweagent.run.mini --model "$AGENT_MODEL" --yolo --exit-immediately --cost-limit 0 --task "$(cat "$MERGEFORGE_TASK_FILE")"'
EOF
)
mergeforge eval --task "$TASK" --agent-cmd "$AGENT_CMD" --agent-network host --agent-ro "$AGENT_VENV" \
  --agent-env AGENT_VENV --agent-env AGENT_MODEL --agent-env OPENAI_API_BASE --agent-env OPENAI_API_KEY \
  --agent-label mini-swe-agent --json --transcripts "$OUT/transcripts" --results "$OUT/results.jsonl""#,
    },
    RealAgent {
        name: "aider",
        command: r#"AGENT_CMD=$(cat <<'EOF'
sh -c 'exec "$AGENT_VENV/bin/python" -m aider --model "$AGENT_MODEL" --edit-format whole --yes-always --no-auto-commits --no-dirty-commits --no-gitignore --no-check-update --no-show-release-notes --no-show-model-warnings --no-analytics --no-pretty --no-fancy-input --map-tokens 0 --max-chat-history-tokens 100000 --chat-history-file "$HOME/chat.md" --input-history-file "$HOME/input.history" --test-cmd "$MERGEFORGE_TEST_CMD" --auto-test --message-file "$MERGEFORGE_TASK_FILE" $(git diff --name-only --diff-filter=U)'
EOF
)
mergeforge eval --task "$TASK" --agent-cmd "$AGENT_CMD" --agent-network host --agent-ro "$AGENT_VENV" \
  --agent-env AGENT_VENV --agent-env AGENT_MODEL --agent-env OPENAI_API_BASE --agent-env OPENAI_API_KEY \
  --agent-label aider --json --transcripts "$OUT/transcripts" --results "$OUT/results.jsonl""#,
    },
];

#[test]
#[ignore = "second tier: installs mini-swe-agent (first run: minutes, ~700 MB) and runs it on two tasks"]
fn mini_swe_agent_solves_its_tasks_through_agent_cmd() {
    play(&AGENTS[0]);
}

#[test]
#[ignore = "second tier: installs aider (first run: minutes, ~700 MB) and runs it on two tasks"]
fn aider_solves_its_tasks_through_agent_cmd() {
    play(&AGENTS[1]);
}

/// Runs `agent`'s command on each task it has a trajectory for, against one replay
/// server, and checks what eval reports and writes.
fn play(agent: &RealAgent) {
    let venv = agent_venv(agent.name);
    let tasks: Vec<(String, PathBuf)> =
        trajectories().into_iter().filter(|(a, _, _)| a == agent.name).map(|(_, task, file)| (task, file)).collect();
    assert!(tasks.len() >= 2, "{}: trajectories for two tasks expected, found {tasks:?}", agent.name);
    let named: Vec<(&str, &Path)> = tasks.iter().map(|(task, file)| (task.as_str(), file.as_path())).collect();
    let server = ReplayServer::start(&named);
    for (task, _) in &tasks {
        let out = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let output = Command::new("bash")
            .arg("-c")
            .arg(agent.command)
            .current_dir(root())
            .env("PATH", path_with_mergeforge())
            .env("TASK", task)
            .env("OUT", out.path())
            .env("AGENT_VENV", &venv)
            .env("AGENT_MODEL", "openai/replay")
            .env("OPENAI_API_BASE", format!("{}/{task}/v1", server.url))
            .env("OPENAI_API_KEY", "replay")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let context = || {
            let log = std::fs::read_to_string(&server.log).unwrap_or_default();
            let transcripts = read_all(&out.path().join("transcripts"));
            format!(
                "{} on {task}\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}\n--- model requests ---\n{log}\n\
                 --- transcripts ---\n{transcripts}",
                agent.name
            )
        };
        assert!(output.status.success(), "eval failed: {}", context());
        let report: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("--json: {e}: {}", context()));
        check_report(&report, agent.name, task).unwrap_or_else(|problem| panic!("{problem}: {}", context()));
        check_written(out.path(), agent.name, task).unwrap_or_else(|problem| panic!("{problem}: {}", context()));
        let status = server.status();
        let served = &status[task.as_str()];
        assert!(
            served["served"] == served["replies"] && served["mismatches"].as_array().is_some_and(Vec::is_empty),
            "the agent did not ask for exactly the trajectory's replies: {served}: {}",
            context()
        );
        eprintln!("{} solved {task} through eval --agent-cmd in {:.0?}", agent.name, started.elapsed());
    }
}

/// The agent's venv, installed from its pinned requirements by the project's venv
/// machinery (cached: a first install downloads some 700 MB and takes minutes).
fn agent_venv(agent: &str) -> PathBuf {
    let file = agents_dir().join(agent).join("requirements.txt");
    let requirements: Vec<String> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(str::to_string)
        .collect();
    eprintln!(
        "{agent}: its venv from {} ({} pins); installing it the first time on a machine downloads ~700 MB and takes \
         minutes",
        file.display(),
        requirements.len()
    );
    let started = Instant::now();
    let env = mergeforge::pytest::venv::ensure_venv(&mergeforge::pytest::venv::user_cache_dir(), &requirements)
        .unwrap_or_else(|e| panic!("installing {agent} from {}: {e:#}", file.display()));
    let venv = env.interpreter.parent().and_then(Path::parent).unwrap().to_path_buf();
    eprintln!("{agent}: venv {} ready in {:.0?}", venv.display(), started.elapsed());
    venv
}

/// `PATH` with the built `mergeforge`'s folder first.
fn path_with_mergeforge() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_mergeforge")).parent().unwrap().display().to_string();
    format!("{bin}:{}", std::env::var("PATH").unwrap_or_default())
}

/// eval's `--json` report: the one task played, the agent exited by itself with 0, and
/// the environment's judgement is solved at full reward.
fn check_report(report: &Value, agent: &str, task: &str) -> Result<(), String> {
    if report["agent"] != agent {
        return Err(format!("--json names the agent {}, not the label {agent}", report["agent"]));
    }
    let episodes = report["episodes"].as_array().ok_or("--json has no episodes")?;
    let [episode] = episodes.as_slice() else { return Err(format!("{} episodes, not 1", episodes.len())) };
    check_episode(episode, task).map_err(|problem| format!("--json episode: {problem}"))?;
    let all = &report["totals"]["all"];
    if all["tasks"] != 1 || all["solved"] != 1 || all["solve_rate"] != 1.0 {
        return Err(format!("--json totals: {all}"));
    }
    Ok(())
}

/// One episode's JSON (in `--json` and `episode.json`): `task`, solved at full reward,
/// the agent's own exit with 0.
fn check_episode(episode: &Value, task: &str) -> Result<(), String> {
    let full = episode["reward"].is_number() && episode["reward"] == episode["max_reward"];
    if episode["task_id"] != task || episode["solved"] != true || !full {
        return Err(format!("not {task} solved at full reward: {episode}"));
    }
    if episode["exit_code"] != 0 || episode["timed_out"] != false {
        return Err(format!("the agent did not exit by itself with 0: {episode}"));
    }
    Ok(())
}

/// The transcript folder eval wrote for `task` (the agent's output, the diff that
/// resolves the conflicted files, the episode) and its one results line.
fn check_written(out: &Path, agent: &str, task: &str) -> Result<(), String> {
    let folder = out.join("transcripts").join(task);
    let read = |name: &str| {
        std::fs::read_to_string(folder.join(name)).map_err(|e| format!("{}: {e}", folder.join(name).display()))
    };
    if read("stdout.txt")?.trim().is_empty() && read("stderr.txt")?.trim().is_empty() {
        return Err("the transcript holds no agent output".to_string());
    }
    let diff = read("diff.patch")?;
    let conflicted = conflicted_paths(task);
    if let Some(path) = conflicted.iter().find(|path| !diff.contains(&format!("+++ b/{path}"))) {
        return Err(format!("diff.patch does not change the conflicted {path}:\n{diff}"));
    }
    let episode: Value = serde_json::from_str(&read("episode.json")?).map_err(|e| format!("episode.json: {e}"))?;
    check_episode(&episode, task).map_err(|problem| format!("episode.json: {problem}"))?;
    let results = std::fs::read_to_string(out.join("results.jsonl")).map_err(|e| format!("results file: {e}"))?;
    let lines: Vec<Value> =
        results.lines().map(|l| serde_json::from_str(l).map_err(|e| format!("{e}: {l}"))).collect::<Result<_, _>>()?;
    let [line] = lines.as_slice() else {
        return Err(format!("results file: {} lines, not 1:\n{results}", lines.len()));
    };
    if line["task_id"] != task || line["success"] != true || line["agent"] != agent {
        return Err(format!("results line is not {task} solved by {agent}: {line}"));
    }
    Ok(())
}

/// The files `task` conflicts in, from its task.json.
fn conflicted_paths(task: &str) -> Vec<String> {
    let file = root().join("generated/mergeforge-embedded/1.0.0/tasks").join(task).join("task.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    json["conflicts"].as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap().to_string()).collect()
}

/// Every file under `dir`, named, for a failure's message.
fn read_all(dir: &Path) -> String {
    let mut text = String::new();
    for entry in walk(dir) {
        let content = std::fs::read_to_string(&entry).unwrap_or_else(|_| "(binary)".to_string());
        text.push_str(&format!("=== {}\n{content}\n", entry.display()));
    }
    text
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files.sort();
    files
}
