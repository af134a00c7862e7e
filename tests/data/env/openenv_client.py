"""Drives a running `mergeforge serve` through the official OpenEnv Python client.

Usage: python openenv_client.py BASE_URL DATASET_DIR

Uses only `openenv.core.GenericEnvClient` (WebSocket /ws, one session per client):
1. resets a task (the observation names no level or family), submits the gold
   resolution, gets the maximum reward with done;
2. on a fresh episode: `../../etc/passwd` is refused with an error and the episode
   goes on; a broken file costs -0.10 in the syntax component; gold still finishes it;
3. the tamper probe: on a task `ours` does not solve, resolves every file with ours,
   then one `run` overwrites every test module with a trivial passing test and adds a
   conftest.py forcing exit status 0; its own test run exits 0, yet the episode earns
   no test reward and does not end solved;
4. runs 16 sessions at once, each on its own task, and checks that no session sees
   another's files or state.
Prints one line per check; exits non-zero (with a traceback) on the first failure.
"""

import asyncio
import json
import pathlib
import sys

from openenv.core import GenericEnvClient

TIMEOUT_S = 600.0


def load_tasks(dataset):
    manifest = json.loads((dataset / "manifest.json").read_text())
    return sorted(entry["id"] for entry in manifest["tasks"])


def gold_steps(dataset, task_id):
    """The gold agent's actions: files outside the conflicts first, then conflicted ones."""
    task = json.loads((dataset / "tasks" / task_id / "task.json").read_text())
    solution = json.loads((dataset / "tasks" / task_id / "solution.json").read_text())
    conflicted = {c["path"] for c in task["conflicts"]}
    files = sorted(solution["files"], key=lambda f: f["path"] in conflicted)
    return [{"file": f["path"], "resolution": f["gold"], "metadata": {"agent": "gold"}} for f in files]


def expect_error(env, action, words):
    try:
        env.step(action)
    except RuntimeError as error:
        message = str(error)
        assert all(w in message for w in words), message
        return message
    raise AssertionError(f"no error for {action}")


def gold_episode(url, dataset, task_id):
    with GenericEnvClient(base_url=url, message_timeout_s=TIMEOUT_S).sync() as env:
        result = env.reset(task_id=task_id)
        obs = result.observation
        assert not result.done and obs["conflict_count"] >= 1, obs
        assert any("<<<<<<<" in text for text in obs["files"].values()), "markers in the observed files"
        assert obs["task"] == {"id": task_id}, f"no level or family by default: {obs['task']}"
        assert "level" not in env.state() and "family" not in env.state(), env.state()
        total = 0.0
        for action in gold_steps(dataset, task_id):
            result = env.step(action)
            total += result.reward
        obs = result.observation
        assert result.done and obs["done"], obs
        assert obs["tests_passing"] and obs["conflict_count"] == 0 and obs["syntax_valid"], obs
        assert abs(total - obs["max_reward"]) < 1e-6, (total, obs["max_reward"])
        assert abs(obs["total_reward"] - obs["max_reward"]) < 1e-6, obs
        print(f"gold: {task_id} reward {total:.2f} = max {obs['max_reward']:.2f}, done")


def errors_keep_the_episode(url, dataset, task_id):
    with GenericEnvClient(base_url=url, message_timeout_s=TIMEOUT_S).sync() as env:
        obs = env.reset(task_id=task_id, episode_id="errors-episode").observation
        path = sorted(obs["files"])[0]
        message = expect_error(env, {"tool": "read_file", "path": "../../etc/passwd"}, ["VALIDATION_ERROR", "leaves the repository"])
        expect_error(env, {"file": "../../etc/passwd", "resolution": "root::0:0::/:/bin/sh\n"}, ["VALIDATION_ERROR"])
        expect_error(env, {"tool": "format_disk"}, ["unknown tool"])
        state = env.state()
        assert state["episode_id"] == "errors-episode" and state["step_count"] == 0, state
        print(f"traversal refused, episode continues: {message}")

        result = env.step({"file": path, "resolution": "def broken(:\n    pass\n"})
        components = result.observation["reward_components"]
        assert abs(components["syntax"] - (-0.10)) < 1e-9, components
        assert not result.observation["syntax_valid"] and not result.done, result.observation
        print(f"broken file: syntax component {components['syntax']:+.2f}")

        for action in gold_steps(dataset, task_id):
            result = env.step(action)
        assert result.done and result.observation["tests_passing"], result.observation
        assert env.state()["step_count"] == 1 + len(gold_steps(dataset, task_id))
        print("after the errors, gold still finishes the episode")


TAMPER = (
    "find . -name 'test_*.py' -not -path './.git/*' | while read f; do "
    "printf 'def test_ok():\\n    assert True\\n' > \"$f\"; done && "
    "printf 'def pytest_sessionfinish(session, exitstatus):\\n    session.exitstatus = 0\\n' > conftest.py"
)


def keep_ours(text):
    """Every diff3 hunk resolved to its ours section."""
    out, section = [], None
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<<"):
            section = "ours"
        elif line.startswith("|||||||") and section:
            section = "base"
        elif line.startswith("=======") and section:
            section = "theirs"
        elif line.startswith(">>>>>>>") and section:
            section = None
        elif section in (None, "ours"):
            out.append(line)
    return "".join(out)


def tamper_probe(url, dataset, tasks):
    def ours_fails(task_id):
        task = json.loads((dataset / "tasks" / task_id / "task.json").read_text())
        solution = json.loads((dataset / "tasks" / task_id / "solution.json").read_text())
        return task["conflict_kind"] == "textual" and not solution["validation"]["baselines"]["ours"]["passed"]

    task_id = next(t for t in tasks if ours_fails(t))
    command = " ".join(json.loads((dataset / "tasks" / task_id / "task.json").read_text())["test_command"])
    with GenericEnvClient(base_url=url, message_timeout_s=TIMEOUT_S).sync() as env:
        result = env.reset(task_id=task_id)
        results = []
        for path, text in result.observation["files"].items():
            results.append(env.step({"file": path, "resolution": keep_ours(text)}))
        results.append(env.step({"tool": "run", "command": TAMPER}))
        own = env.step({"tool": "run", "command": command})
        assert own.observation["last_output"].startswith("exit 0"), own.observation["last_output"]
        results.append(own)
        if not own.done:
            results.append(env.step({"tool": "finish"}))
        tests = sum(r.observation["reward_components"]["tests"] for r in results)
        assert tests == 0.0, (task_id, tests)
        assert not any(r.observation["tests_passing"] for r in results), task_id
        assert results[-1].done, task_id
        print(f"tamper probe on {task_id}: its own test run exits 0, test reward {tests:.2f}, not solved")


async def one_session(url, dataset, index, task_id):
    tag = f"# session {index} owns this file"
    async with GenericEnvClient(base_url=url, message_timeout_s=TIMEOUT_S) as env:
        result = await env.reset(task_id=task_id, episode_id=f"session-{index}")
        assert result.observation["task"]["id"] == task_id
        path = sorted(result.observation["files"])[0]
        head = "\n".join(result.observation["files"][path].split("\n")[:2])
        await env.step({"tool": "edit_file", "path": path, "old_string": head, "new_string": f"{tag}\n{head}"})
        result = await env.step({"tool": "read_file", "path": path, "start_line": 1, "end_line": 2})
        seen = result.observation["last_output"]
        assert tag in seen and seen.count("# session") == 1, seen
        assert result.observation["files"][path].startswith(tag), "the observation shows this session's file"
        for action in gold_steps(dataset, task_id):
            # The graded run restores gold's tests: gold's source alone may already solve.
            if result.done:
                break
            result = await env.step(action)
        state = await env.state()
        assert state["episode_id"] == f"session-{index}" and state["task_id"] == task_id, state
        assert result.done and result.observation["tests_passing"], (task_id, result.observation["last_output"])
        return task_id


async def sixteen_sessions(url, dataset, tasks):
    chosen = tasks[:: max(1, len(tasks) // 16)][:16]
    done = await asyncio.gather(*(one_session(url, dataset, i, t) for i, t in enumerate(chosen)))
    assert done == chosen, done
    print(f"{len(done)} concurrent sessions, no cross-talk")


def main():
    url, dataset = sys.argv[1], pathlib.Path(sys.argv[2])
    tasks = load_tasks(dataset)
    manifest = json.loads((dataset / "manifest.json").read_text())
    # A task with markers (the sample's first id may be a semantic task, which has none).
    textual = sorted(e["id"] for e in manifest["tasks"] if e["conflict_kind"] == "textual")
    sigcall = next((e["id"] for e in manifest["tasks"] if e["family"] == "signature-callsite"), textual[0])
    gold_episode(url, dataset, sigcall)
    errors_keep_the_episode(url, dataset, textual[0])
    tamper_probe(url, dataset, tasks)
    asyncio.run(sixteen_sessions(url, dataset, tasks))
    print("openenv client: all checks passed")


if __name__ == "__main__":
    main()
