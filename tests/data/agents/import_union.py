#!/usr/bin/env python3
"""A scripted agent for the agent rung's tests: a union that merges name lists.

Every conflict hunk becomes ours' lines then theirs', except a hunk whose two sides are
each one line of comma-separated names (a line inside `from x import (...)`): that
becomes one line with ours' names, then theirs' names ours lacks. This solves the
hard feature-feature tasks where two features add a function each at one place and a
name each to one import line, which the ladder's whole-hunk unions cannot (they repeat
the line's other names). It reads and writes only the files under the current folder
(the episode's workspace), and runs nothing.
"""

import os
import re
import sys

NAMES = re.compile(r"^(\s*)((?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*)(\s*,?)\s*$")


def resolve(ours, theirs):
    """One hunk's resolution from its two sides' lines."""
    if len(ours) == 1 and len(theirs) == 1:
        a, b = NAMES.match(ours[0]), NAMES.match(theirs[0])
        if a and b:
            names = [n.strip() for n in a.group(2).split(",")]
            names += [n for n in (m.strip() for m in b.group(2).split(",")) if n not in names]
            return [a.group(1) + ", ".join(names) + a.group(3) + "\n"]
    return ours + theirs


def merge(text):
    """The text with every diff3 or merge-style conflict hunk resolved."""
    out, side, ours, theirs = [], None, [], []
    for line in text.splitlines(keepends=True):
        if line.startswith("<<<<<<< "):
            side, ours, theirs = "ours", [], []
        elif side and line.startswith("||||||| "):
            side = "base"
        elif side and line.rstrip("\n") == "=======":
            side = "theirs"
        elif side and line.startswith(">>>>>>> "):
            out += resolve(ours, theirs)
            side = None
        elif side == "ours":
            ours.append(line)
        elif side == "theirs":
            theirs.append(line)
        elif side is None:
            out.append(line)
    return "".join(out)


def main():
    for folder, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            path = os.path.join(folder, name)
            try:
                text = open(path, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            if "\n<<<<<<< " in "\n" + text:
                open(path, "w", encoding="utf-8").write(merge(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
