#!/usr/bin/env python3
"""Writes the trajectory a scripted model replays to a real agent program on one task:
the assistant's replies, in the agent's own action format, that inspect the conflict,
write the task's gold resolution and run the tests.

    python3 record.py AGENT TASK_DIR > AGENT/TASK_ID.json

AGENT is `mini-swe-agent` (its default config: one `bash` tool call per reply, ending
with its submit command) or `aider` (`--edit-format whole`: a file listing per file,
after asking for the files outside the conflict that the resolution edits). TASK_DIR is
a task folder of a published version (`solution.json`, `task.json`). No real model is
reachable here, so the replies are written from the task's gold; `replay_server.py`
serves them and checks each request carries what the agent should have observed (see
its `expect`). The committed trajectories are this script's output: a first-tier test
re-runs it and compares, so regenerating the sample shows up as a one-command update.
"""

import json
import shlex
import sys
from pathlib import Path

MARKER_START = "<<<<<<< "
MARKER_END = ">>>>>>> "


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in SCRIPTS:
        sys.exit(f"usage: record.py {{{','.join(SCRIPTS)}}} TASK_DIR")
    task_dir = Path(sys.argv[2])
    task = json.loads((task_dir / "task.json").read_text(encoding="utf-8"))
    solution = json.loads((task_dir / "solution.json").read_text(encoding="utf-8"))
    trajectory = SCRIPTS[sys.argv[1]](task, solution)
    json.dump(trajectory, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")


def mini_swe_agent(task, solution):
    """Four steps: look, resolve every file, run the tests, submit."""
    conflicted = [c["path"] for c in task["conflicts"]]
    test_command = shlex.join(task["test_command"])
    edits = "\n".join(edit_command(f) for f in solution["files"])
    return [
        {
            "expect": conflicted,
            "content": "First I look at the merge in progress: which files conflict, and how.",
            "tool_calls": [bash("git status && git diff")],
        },
        {
            "expect": ["both modified:"] + conflicted,
            "content": f"The two sides: {solution['summary']}. I write the resolution that keeps "
            "both sides' intent, then check no conflict marker is left.",
            "tool_calls": [bash(f"{edits}\ngit diff --stat && ! git grep -n '^{MARKER_START}' -- .")],
        },
        {
            "expect": ['"returncode": 0'],
            "content": "The markers are gone. Now the tests.",
            "tool_calls": [bash(test_command)],
        },
        {
            "expect": [" passed", '"returncode": 0'],
            "content": "All tests pass: the merge is resolved.",
            "tool_calls": [bash("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT")],
        },
    ]


def edit_command(file):
    """A shell command that turns the checkout's version of `file` into gold's: the one
    conflict block replaced in place when there is one, else the whole file written."""
    path, conflicted, gold = file["path"], file["conflicted"], file["gold"]
    hunk = single_hunk(conflicted, gold)
    if hunk is None:
        return f"cat > {shlex.quote(path)} <<'MERGEFORGE_EOF'\n{gold}MERGEFORGE_EOF"
    return (
        "python3 - <<'MERGEFORGE_EOF'\n"
        "import pathlib, re\n"
        f"path = pathlib.Path({path!r})\n"
        f"resolution = {hunk!r}\n"
        "block = re.compile(r'^<<<<<<< .*?^>>>>>>> [^\\n]*\\n', re.S | re.M)\n"
        "text, count = block.subn(lambda _: resolution, path.read_text())\n"
        "assert count == 1, f'{path}: {count} conflict blocks'\n"
        "path.write_text(text)\n"
        "MERGEFORGE_EOF"
    )


def single_hunk(conflicted, gold):
    """Gold's text for the one conflict block of `conflicted`, or None (no block, or
    several)."""
    if conflicted.count(MARKER_START) != 1:
        return None
    start = conflicted.index(MARKER_START)
    end = conflicted.index("\n", conflicted.index("\n" + MARKER_END, start) + 1) + 1
    prefix, suffix = conflicted[:start], conflicted[end:]
    if not (gold.startswith(prefix) and gold.endswith(suffix) and len(prefix) + len(suffix) <= len(gold)):
        return None
    return gold[len(prefix) : len(gold) - len(suffix)]


def aider(task, solution):
    """One reply with every file's gold listing; first a reply that names the files
    outside the conflict it must also edit, which aider then adds to the chat."""
    conflicted = [c["path"] for c in task["conflicts"]]
    others = [f["path"] for f in solution["files"] if f["path"] not in conflicted]
    fence = "````" if any("```" in f["gold"] for f in solution["files"]) else "```"
    listing = "".join(f"{f['path']}\n{fence}\n{f['gold']}{fence}\n\n" for f in solution["files"])
    answer = (
        "Here is the resolution: every conflict block replaced by code that keeps both "
        f"sides' intent.\n\n{listing}"
    )
    if not others:
        return [{"expect": conflicted, "content": f"The two sides: {solution['summary']}.\n\n{answer}"}]
    return [
        {
            "expect": conflicted,
            "content": f"The two sides: {solution['summary']}. The resolution must also change "
            f"{' and '.join(others)}; please add {'it' if len(others) == 1 else 'them'} to the chat.",
        },
        {"expect": [f"I added these files to the chat: {', '.join(sorted(others))}"], "content": answer},
    ]


def bash(command):
    return {"name": "bash", "arguments": {"command": command}}


SCRIPTS = {"mini-swe-agent": mini_swe_agent, "aider": aider}

if __name__ == "__main__":
    main()
