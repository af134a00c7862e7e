"""Plays the gold resolution of every task of a dataset through the official OpenEnv
Python client (`openenv.core.GenericEnvClient`, WebSocket /ws) against a running
`mergeforge serve`, and checks that each episode ends solved with the maximum reward.

Usage: python gold_client.py BASE_URL DATASET_DIR
Prints one line per task and `all gold episodes solved`; exits non-zero on a failure.
"""

import json
import pathlib
import sys

from openenv.core import GenericEnvClient


def main():
    url, dataset = sys.argv[1], pathlib.Path(sys.argv[2])
    manifest = json.loads((dataset / "manifest.json").read_text())
    ids = sorted(entry["id"] for entry in manifest["tasks"])
    assert ids, "the dataset has tasks"
    for task_id in ids:
        task = json.loads((dataset / "tasks" / task_id / "task.json").read_text())
        solution = json.loads((dataset / "tasks" / task_id / "solution.json").read_text())
        conflicted = {c["path"] for c in task["conflicts"]}
        files = sorted(solution["files"], key=lambda f: f["path"] in conflicted)
        with GenericEnvClient(base_url=url, message_timeout_s=600.0).sync() as env:
            env.reset(task_id=task_id)
            total = 0.0
            for f in files:
                result = env.step({"file": f["path"], "resolution": f["gold"]})
                total += result.reward
            obs = result.observation
            assert result.done and obs["tests_passing"], obs
            assert abs(total - obs["max_reward"]) < 1e-6, (total, obs["max_reward"])
            print(f"gold: {task_id} solved, reward {total:.2f}")
    print("all gold episodes solved")


main()
