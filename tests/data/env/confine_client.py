"""Two live episodes through the official OpenEnv client: what a `run` may read.

Usage: python confine_client.py BASE_URL DATASET_DIR TASK_ID USER_HOME

Uses only `openenv.core.GenericEnvClient` (WebSocket /ws, one session per client):
1. episode B learns its repository's folder with `pwd`;
2. in episode A, `cat` of the dataset's `solution.json` (the gold text), `cat` of a
   file in B's repository and `ls` of the user's home all fail with "Permission
   denied", while `cat` of a file in A's own repository, `python -c`, `git status` and
   writing under $TMPDIR work, and `/proc` lists A's own processes only;
3. A then submits gold and ends solved: the graded test command runs under the same
   confinement and still passes.
Prints one line per check; exits non-zero (with a traceback) on the first failure.
"""

import json
import pathlib
import shlex
import sys

from openenv.core import GenericEnvClient

TIMEOUT_S = 600.0


def run(env, command):
    """The `run` tool's output: `exit N` on the first line, then what the command printed."""
    output = env.step({"tool": "run", "command": command}).observation["last_output"]
    status, _, printed = output.partition("\n")
    return status, printed


def expect_denied(env, command):
    status, printed = run(env, command)
    assert status != "exit 0" and "Permission denied" in printed, (command, status, printed[:300])
    print(f"denied: {command}: {printed.strip().splitlines()[-1]}")


def expect_works(env, command, words=()):
    status, printed = run(env, command)
    assert status == "exit 0" and all(w in printed for w in words), (command, status, printed[:300])
    return printed


def main():
    url, dataset, task_id, user_home = sys.argv[1], pathlib.Path(sys.argv[2]).resolve(), sys.argv[3], sys.argv[4]
    solution = dataset / "tasks" / task_id / "solution.json"
    assert solution.is_file(), solution
    gold = json.loads(solution.read_text())["files"]
    with GenericEnvClient(base_url=url, message_timeout_s=TIMEOUT_S).sync() as a, GenericEnvClient(
        base_url=url, message_timeout_s=TIMEOUT_S
    ).sync() as b:
        own_file = sorted(a.reset(task_id=task_id).observation["files"])[0]
        b.reset(task_id=task_id)
        other_repo = expect_works(b, "pwd").strip()
        own_repo = expect_works(a, "pwd").strip()
        assert other_repo != own_repo and other_repo.endswith("/repo"), (own_repo, other_repo)
        print(f"episodes: A in {own_repo}, B in {other_repo}")

        expect_denied(a, f"cat {shlex.quote(str(solution))}")
        expect_denied(a, f"cat {shlex.quote(other_repo + '/' + own_file)}")
        expect_denied(a, f"ls {shlex.quote(user_home)}")

        expect_works(a, f"cat {shlex.quote(own_file)}", ["<<<<<<<"])
        expect_works(a, "python -c 'import json, ssl, sqlite3; print(json.dumps([6 * 7]))'", ["[42]"])
        expect_works(a, "git status", ["Unmerged paths"])
        expect_works(a, 'echo scratch > "$TMPDIR/x" && cat "$TMPDIR/x"', ["scratch"])
        pids = [p for p in expect_works(a, "ls /proc").split() if p.isdigit()]
        assert 0 < len(pids) <= 5, f"/proc shows other processes: {pids}"
        print(f"allowed: own files, python, git, $TMPDIR; /proc shows {len(pids)} processes")

        for file in gold:
            result = a.step({"file": file["path"], "resolution": file["gold"]})
        obs = result.observation
        assert result.done and obs["tests_passing"], obs["last_output"]
        print(f"gold in A: solved ({obs['last_output'].splitlines()[-1]})")


if __name__ == "__main__":
    main()
