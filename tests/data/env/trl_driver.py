"""Drives examples/trl_grpo.py's `MergeConflictEnv` the way TRL's GRPOTrainer does
(tests/it/env_package.rs), against a real `mergeforge serve`, without torch.

argv: SERVER_URL PUBLISHED_FOLDER EXAMPLE_PATH

The trainer (trl 1.16, `GRPOTrainer(environment_factory=...)`): instantiates the class,
lists its tools as the public functions of the class other than `reset` and
`get_reward`, derives each tool's schema with `transformers.utils.get_json_schema`, calls
`reset(**row)` with the dataset row and appends a returned string to the prompt, calls
tools by name with the model's arguments, then scores the rollout with `get_reward()`.
Prints one line per check and "all checks passed".
"""

import glob
import importlib.util
import inspect
import json
import os
import sys

from transformers.utils import get_json_schema

url, published, example = sys.argv[1], sys.argv[2], sys.argv[3]
os.environ["MERGEFORGE_URL"] = url
spec = importlib.util.spec_from_file_location("trl_grpo", example)
trl_grpo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(trl_grpo)

TOOLS = ["edit_file", "finish", "read_file", "run", "run_tests", "write_file"]

# The trainer's tool discovery and schemas.
env = trl_grpo.MergeConflictEnv()
found = sorted(
    name
    for name, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)
    if name not in ("reset", "get_reward") and not name.startswith("_")
)
assert found == TOOLS, found
schemas = {name: get_json_schema(getattr(env, name))["function"] for name in TOOLS}
for name, schema in schemas.items():
    assert schema["name"] == name and schema["description"], schema
    for prop, body in schema["parameters"].get("properties", {}).items():
        assert body.get("description"), (name, prop)
assert schemas["edit_file"]["parameters"]["required"] == ["path", "old_string", "new_string"], schemas["edit_file"]
assert schemas["read_file"]["parameters"]["required"] == ["path"], schemas["read_file"]
assert "parameters" not in schemas["finish"] or not schemas["finish"]["parameters"].get("required")
print("schemas: " + ", ".join(f"{n}({', '.join(s['parameters'].get('properties', {}))})" for n, s in schemas.items()))

# The prompt dataset from the published version, and the answers the test may peek at.
rows = trl_grpo.load_prompts(published, "train") + trl_grpo.load_prompts(published, "test")
assert rows and all(set(row) == {"prompt", "task_id"} for row in rows), rows[:1]
solutions = {}
for path in glob.glob(os.path.join(published, "data", "solutions", "*.jsonl")):
    for line in open(path, encoding="utf-8"):
        record = json.loads(line)
        solutions[record["id"]] = record
print(f"prompts: {len(rows)} rows, {len(solutions)} solutions")
assert len(rows) == len(solutions)

# A gold rollout: read, run, test, edit, then write gold's files.
row = next(r for r in rows if r["task_id"] == "calculator-c80129ecf3")
prompt_tail = env.reset(**row)
assert "<<<<<<<" in prompt_tail and "conflict block(s)" in prompt_tail, prompt_tail[:300]
files = solutions[row["task_id"]]["files"]
conflicted = [f["path"] for f in files if f["conflicted"]]
listing = env.read_file(conflicted[0], 1, 2)
assert "1\t" in listing, listing
status = env.run("git status --short")
assert "UU " in status, status
tests = env.run_tests()
assert "fail" in tests.lower(), tests
refused = env.edit_file(conflicted[0], "no such text anywhere", "x")
assert "`old_string` does not occur" in refused and "episode over" not in refused, refused
assert env.get_reward() < 0.2, env.get_reward()
outside = [f for f in files if not f["conflicted"]]
for f in outside + [f for f in files if f["conflicted"]]:
    last = env.write_file(f["path"], f["gold"])
assert "tests passing: True; episode over" in last, last
assert env.finish() == "The episode is over."
gold_reward = env.get_reward()
assert abs(gold_reward - 1.15) < 1e-9, gold_reward
print(f"gold: reward {gold_reward:.2f}")

# An unsolved rollout on another task: finish at once.
other = next(r for r in rows if r["task_id"] != row["task_id"])
env.reset(**other)
ended = env.finish()
assert "episode over" in ended, ended
assert env.get_reward() <= 0.15, env.get_reward()
print(f"finish at once: reward {env.get_reward():.2f}")
print("all checks passed")
