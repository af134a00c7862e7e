#!/usr/bin/env python3
"""A scripted agent: resolves every conflict hunk of every unmerged file with one side.

Usage: one_side.py ours|theirs. It works in $MERGEFORGE_REPO (its working directory),
finds the unmerged paths with git, and keeps the chosen side of each diff3 block.
"""

import os
import subprocess
import sys


def resolve(text, side):
    out, part = [], None
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<<"):
            part = "ours"
        elif line.startswith("|||||||") and part == "ours":
            part = "base"
        elif line.startswith("=======") and part in ("ours", "base"):
            part = "theirs"
        elif line.startswith(">>>>>>>") and part == "theirs":
            part = None
        elif part is None or part == side:
            out.append(line)
    return "".join(out)


def main():
    side = sys.argv[1] if len(sys.argv) > 1 else "ours"
    repo = os.environ["MERGEFORGE_REPO"]
    task = open(os.environ["MERGEFORGE_TASK_FILE"]).read()
    print(f"task file: {len(task)} bytes; side: {side}")
    listed = subprocess.run(
        ["git", "diff", "--name-only", "--diff-filter=U", "-z"], cwd=repo, capture_output=True, check=True
    )
    for path in sorted(set(p for p in listed.stdout.decode().split("\0") if p)):
        full = os.path.join(repo, path)
        with open(full) as f:
            text = f.read()
        with open(full, "w") as f:
            f.write(resolve(text, side))
        print(f"resolved {path} with {side}")


if __name__ == "__main__":
    main()
