#!/usr/bin/env python3
"""A scripted agent for the agent rung's tests: a rename-aware merge of every conflict hunk.

It resolves one hunk shape no resolver of the ladder does: one side only renames
identifiers, the other changes the code. The resolution is the changing side's text
with the renaming side's renames applied (a new function written against a renamed
helper, a new branch reading a renamed local). Renames are gathered from every hunk of
every conflicted file, so one found in one hunk applies in all. Any other hunk keeps
its markers. It reads and writes only the files under the current folder (the
episode's workspace), and runs nothing.
"""

import difflib
import os
import re
import sys

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def hunks(text):
    """Splits diff3-marked text into clean strings and (ours, base, theirs) triples."""
    out, lines, i = [], text.splitlines(keepends=True), 0
    clean = []
    while i < len(lines):
        if not lines[i].startswith("<<<<<<< "):
            clean.append(lines[i])
            i += 1
            continue
        parts, part, i = [], [], i + 1
        while i < len(lines) and not lines[i].startswith(">>>>>>> "):
            if lines[i].startswith("||||||| ") or lines[i].rstrip("\n") == "=======":
                parts.append(part)
                part = []
            else:
                part.append(lines[i])
            i += 1
        parts.append(part)
        i += 1
        if len(parts) != 3:
            return None  # not diff3 markers: leave the file alone
        out.append("".join(clean))
        clean = []
        out.append(tuple("".join(p) for p in parts))
    out.append("".join(clean))
    return out


def renames(base, side):
    """Identifier renames from base to side, and whether side changes anything else."""
    a, b = TOKEN.findall(base), TOKEN.findall(side)
    found, other = {}, False
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        pairs = list(zip(a[i1:i2], b[j1:j2]))
        if op == "replace" and i2 - i1 == j2 - j1 and all(IDENT.match(x) and IDENT.match(y) for x, y in pairs):
            found.update(pairs)
        else:
            other = True
    return found, other


def rename(text, names):
    if not names:
        return text
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    return pattern.sub(lambda m: names[m.group(1)], text)


def main():
    files = {}
    for root, dirs, names in os.walk("."):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            path = os.path.join(root, name)
            try:
                text = open(path, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            parts = hunks(text) if "\n<<<<<<< " in "\n" + text else None
            if parts:
                files[path] = parts
    # Renames from every hunk: the renaming side's map, by side.
    maps = {"ours": {}, "theirs": {}}
    for parts in files.values():
        for part in parts:
            if isinstance(part, tuple):
                ours, base, theirs = part
                maps["ours"].update(renames(base, ours)[0])
                maps["theirs"].update(renames(base, theirs)[0])
    resolved = 0
    for path, parts in files.items():
        out = []
        for part in parts:
            if not isinstance(part, tuple):
                out.append(part)
                continue
            ours, base, theirs = part
            (_, ours_other), (_, theirs_other) = renames(base, ours), renames(base, theirs)
            if ours_other and not theirs_other:
                out.append(rename(ours, maps["theirs"]))
            elif theirs_other and not ours_other:
                out.append(rename(theirs, maps["ours"]))
            else:
                out.append("<<<<<<< ours\n" + ours + "||||||| base\n" + base + "=======\n" + theirs + ">>>>>>> theirs\n")
                continue
            resolved += 1
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(out))
    print(f"rename-aware agent: {resolved} hunks resolved in {len(files)} files", file=sys.stderr)


if __name__ == "__main__":
    main()
