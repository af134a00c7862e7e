"""Train a model to resolve merge conflicts with TRL's GRPOTrainer on a mergeforge dataset.

Each training prompt names one task of a published mergeforge version. For every
generation the trainer resets one `MergeConflictEnv` with that row: a fresh episode on a
`mergeforge serve` server, a real git repository stopped in the middle of a merge. The
model then calls the environment's tools (`read_file`, `edit_file`, `write_file`, `run`,
`run_tests`, `finish`), whose schemas TRL derives from the docstrings below, and the
episode's reward (`get_reward`, read from the server) scores the rollout.

    pip install "trl>=1.16" "transformers>=5.2" datasets ./envs/mergeforge_env
    mergeforge serve --dataset PUBLISHED --addr 127.0.0.1:8000 --max-steps 50
    python examples/trl_grpo.py --dataset PUBLISHED --model Qwen/Qwen3-0.6B

PUBLISHED is a folder written by `mergeforge publish` or its Hugging Face Hub id; the
server needs the solutions too (they stay on the server: the prompts carry only ids).
Training needs a GPU; `MergeConflictEnv` and `load_prompts` do not and are what
tests/it/env_package.rs drives against a real server.
"""

import argparse
import glob
import json
import os
from typing import Optional

from mergeforge_env import MergeforgeAction, MergeforgeEnv

SERVER_URL = os.environ.get("MERGEFORGE_URL", "http://127.0.0.1:8000")

PROMPT = (
    "You are in a git repository in the middle of `git merge theirs` on branch `ours`. "
    "Git stopped with conflicts. Resolve them so that both branches' changes are kept "
    "and the project's tests pass: read the conflicted files and whatever else you need, "
    "edit or rewrite files, run commands and the tests, then call `finish`. The "
    "conflicted files, with their markers, follow."
)

MAX_OUTPUT = 6000


def load_prompts(dataset: str, split: str = "train", level: str = "*") -> list:
    """The prompt rows of a published version: `{"prompt": [...], "task_id": id}` per task.

    `dataset` is a folder written by `mergeforge publish` or a Hub id (read with the
    `datasets` library, config `default` or a level); `level` filters a folder by level.
    """
    if os.path.isdir(dataset):
        records = []
        for path in sorted(glob.glob(os.path.join(dataset, "data", "tasks", level, f"{split}-*.jsonl"))):
            with open(path, encoding="utf-8") as lines:
                records.extend(json.loads(line) for line in lines if line.strip())
    else:
        from datasets import load_dataset

        config = "default" if level == "*" else level
        records = list(load_dataset(dataset, config, split=split))
    return [{"prompt": [{"role": "user", "content": PROMPT}], "task_id": record["id"]} for record in records]


class MergeConflictEnv:
    """One episode at a time on a mergeforge server, for `GRPOTrainer(environment_factory=...)`."""

    def __init__(self, base_url: str = SERVER_URL):
        self._client = MergeforgeEnv(base_url=base_url).sync()
        self._client.connect()
        self._reward = 0.0
        self._done = False

    def reset(self, task_id: str, **row) -> str:
        """Starts an episode of `task_id`; returns the conflicted files for the prompt."""
        result = self._client.reset(task_id=task_id)
        self._reward = 0.0
        self._done = False
        observation = result.observation
        parts = [f"{observation.conflict_count} conflict block(s) in {len(observation.files)} file(s)."]
        for path, text in sorted(observation.files.items()):
            parts.append(f"--- {path}\n{text}")
        return "\n\n" + "\n\n".join(parts)

    def read_file(self, path: str, start_line: Optional[int] = None, end_line: Optional[int] = None) -> str:
        """
        Show a file of the repository with numbered lines.

        Args:
            path: The file's path relative to the repository root.
            start_line: The first line to show (1-based); from the start if omitted.
            end_line: The last line to show (inclusive); to the end if omitted.

        Returns:
            The numbered lines, or an error.
        """
        return self._step(MergeforgeAction.read_file(path, start_line, end_line))

    def edit_file(self, path: str, old_string: str, new_string: str) -> str:
        """
        Replace one exact piece of text in a file, e.g. a whole conflict block with its resolution.

        Args:
            path: The file's path relative to the repository root.
            old_string: The exact text to replace, whitespace included; it must occur exactly once in the file.
            new_string: The text that takes its place (may be empty).

        Returns:
            The conflicts and tests left, or why the edit was refused.
        """
        return self._step(MergeforgeAction.edit_file(path, old_string, new_string))

    def write_file(self, path: str, content: str) -> str:
        """
        Replace a whole file, e.g. with its resolved text.

        Args:
            path: The file's path relative to the repository root.
            content: The whole new text of the file.

        Returns:
            The conflicts and tests left.
        """
        return self._step(MergeforgeAction.write_file(path, content))

    def run(self, command: str) -> str:
        """
        Run a shell command in the repository (sandboxed, no network), e.g. `git diff` or `git log theirs`.

        Args:
            command: The shell command line.

        Returns:
            The command's exit status and output.
        """
        return self._step(MergeforgeAction.run(command))

    def run_tests(self) -> str:
        """
        Run the project's tests on the current tree.

        Returns:
            The tests that passed and failed.
        """
        return self._step(MergeforgeAction.run_tests())

    def finish(self) -> str:
        """
        End the episode: the tree is graded as it is.

        Returns:
            The outcome.
        """
        return self._step(MergeforgeAction.finish())

    def get_reward(self) -> float:
        """The episode's reward so far, as the server computed it."""
        return self._reward

    def _step(self, action: MergeforgeAction) -> str:
        if self._done:
            return "The episode is over."
        try:
            result = self._client.step(action)
        except RuntimeError as refused:  # the server refused the action: the model reads why
            return str(refused).removeprefix("Server error: ")
        observation = result.observation
        self._reward = observation.total_reward
        self._done = result.done
        status = f"[conflict blocks left: {observation.conflict_count}; tests passing: {observation.tests_passing}"
        status += "; episode over]" if result.done else "]"
        return f"{observation.last_output[-MAX_OUTPUT:]}\n{status}".strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True, help="published folder or Hub id")
    parser.add_argument("--model", default="Qwen/Qwen3-0.6B")
    parser.add_argument("--split", default="train")
    parser.add_argument("--level", default="*", help="easy, medium or hard (default: every level)")
    parser.add_argument("--output-dir", default="mergeforge-grpo")
    args = parser.parse_args()

    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    trainer = GRPOTrainer(
        model=args.model,
        train_dataset=Dataset.from_list(load_prompts(args.dataset, args.split, args.level)),
        environment_factory=MergeConflictEnv,
        args=GRPOConfig(
            output_dir=args.output_dir,
            max_completion_length=4096,
            chat_template_kwargs={"enable_thinking": False},
            log_completions=True,
        ),
    )
    trainer.train()


if __name__ == "__main__":
    main()
