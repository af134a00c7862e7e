"""`mergeforge bench env`'s client: times resets of a running `mergeforge serve` through
the official OpenEnv Python client (`openenv.core.GenericEnvClient` over /ws).

Usage: python env_client.py BASE_URL DATASET_DIR RESETS SESSIONS [TASKS]

TASKS limits the bench to the dataset's first TASKS tasks (by id; default all).

1. cold: one reset of every task, in id order, on one session (the first reset of a
   task is the one that prepares it on the template path);
2. sequential: RESETS more resets on that session, cycling through the tasks;
3. concurrent: SESSIONS sessions connect, then all reset at the same moment (each on
   one of SESSIONS/2 tasks, so every task is played by two sessions at once); each then
   tags its first conflicted file with its own line, reads it back (it must see its own
   tag only: no cross-talk), and plays the gold episode to the end.

Prints one JSON object on stdout: every reset's latency in seconds, the concurrent
burst's wall time, and per session its task, whether it was solved, whether it saw
another session's tag, and its error if any.
"""

import asyncio
import json
import pathlib
import sys
import time
from importlib import metadata

from openenv.core import GenericEnvClient

TIMEOUT_S = 900.0


def load_tasks(dataset):
    manifest = json.loads((dataset / "manifest.json").read_text())
    return sorted(entry["id"] for entry in manifest["tasks"])


def gold_steps(dataset, task_id):
    """The gold agent's actions: files outside the conflicts first, then conflicted ones."""
    task = json.loads((dataset / "tasks" / task_id / "task.json").read_text())
    solution = json.loads((dataset / "tasks" / task_id / "solution.json").read_text())
    conflicted = {c["path"] for c in task["conflicts"]}
    files = sorted(solution["files"], key=lambda f: f["path"] in conflicted)
    return [{"file": f["path"], "resolution": f["gold"]} for f in files]


async def timed_reset(env, **kwargs):
    started = time.perf_counter()
    result = await env.reset(**kwargs)
    return time.perf_counter() - started, result


async def one_by_one(url, tasks, resets):
    async with GenericEnvClient(base_url=url, message_timeout_s=TIMEOUT_S) as env:
        cold = [(await timed_reset(env, task_id=t))[0] for t in tasks]
        warm = [(await timed_reset(env, task_id=tasks[i % len(tasks)]))[0] for i in range(resets)]
    return cold, warm


async def session(url, dataset, index, task_id, ready, start):
    report = {"task": task_id, "solved": False, "crosstalk": False, "error": None, "reset_s": None}
    tag = f"# bench session {index} owns this file"
    try:
        async with GenericEnvClient(base_url=url, message_timeout_s=TIMEOUT_S) as env:
            ready()
            await start.wait()
            report["reset_s"], result = await timed_reset(env, task_id=task_id, episode_id=f"bench-{index}")
            path = sorted(result.observation["files"])[0]
            text = result.observation["files"][path]  # the whole file occurs once: tag its start
            await env.step({"tool": "edit_file", "path": path, "old_string": text, "new_string": tag + "\n" + text})
            seen = (await env.step({"tool": "read_file", "path": path, "start_line": 1, "end_line": 3}))
            text = seen.observation["last_output"]
            report["crosstalk"] = tag not in text or text.count("# bench session") != 1
            for action in gold_steps(dataset, task_id):
                if seen.done:
                    break
                seen = await env.step(action)
            state = await env.state()
            report["crosstalk"] |= state["episode_id"] != f"bench-{index}" or state["task_id"] != task_id
            report["solved"] = bool(seen.done and seen.observation["tests_passing"])
    except Exception as error:  # reported, not raised: the bench counts errors
        report["error"] = f"{type(error).__name__}: {error}"
    return report


async def burst(url, dataset, tasks, sessions):
    chosen = tasks[:: max(1, len(tasks) // max(1, sessions // 2))][: max(1, sessions // 2)]
    start = asyncio.Event()
    connected = 0

    def ready():
        nonlocal connected
        connected += 1
        if connected == sessions:
            start.set()

    began = time.perf_counter()
    runs = [session(url, dataset, i, chosen[i % len(chosen)], ready, start) for i in range(sessions)]
    gathered = asyncio.gather(*runs)
    # A session that fails to connect never calls ready(): start anyway after a while.
    while not start.is_set() and time.perf_counter() - began < 120:
        await asyncio.sleep(0.05)
    start.set()
    started = time.perf_counter()
    reports = await gathered
    return reports, time.perf_counter() - started


def main():
    url, dataset = sys.argv[1], pathlib.Path(sys.argv[2])
    resets, sessions = int(sys.argv[3]), int(sys.argv[4])
    tasks = load_tasks(dataset)
    if len(sys.argv) > 5 and int(sys.argv[5]) > 0:
        tasks = tasks[: int(sys.argv[5])]
    cold, warm = asyncio.run(one_by_one(url, tasks, resets))
    reports, wall = asyncio.run(burst(url, dataset, tasks, sessions))
    print(json.dumps({
        "client": f"openenv-core {metadata.version('openenv-core')}",
        "cold_s": cold,
        "sequential_s": warm,
        "sessions": reports,
        "burst_wall_s": wall,
    }))


if __name__ == "__main__":
    main()
