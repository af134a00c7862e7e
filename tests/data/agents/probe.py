#!/usr/bin/env python3
"""A probe agent: tries what an agent may and may not do, and prints one JSON report.

It writes in its repository, its home and its TMPDIR (allowed), and outside its
episode (denied): each path in $PROBE_WRITE (colon-separated) and the folder above its
episode. It reads each path in $PROBE_READ (the dataset's gold: denied), its home's
`config.txt` (copied from --agent-home), and connects to 127.0.0.1:$PROBE_PORT (a
listener of the host: reachable only with --agent-network host).
"""

import json
import os
import socket

report = {}


def attempt(name, action):
    try:
        action()
        report[name] = "ok"
    except OSError:
        report[name] = "denied"


def write(path):
    with open(path, "w") as f:
        f.write("probe\n")


def read(path):
    with open(path) as f:
        f.read()


repo = os.environ["MERGEFORGE_REPO"]
attempt("write repo", lambda: write(os.path.join(repo, "probe.txt")))
attempt("write home", lambda: write(os.path.join(os.environ["HOME"], "probe.txt")))
attempt("write tmp", lambda: write(os.path.join(os.environ["TMPDIR"], "probe.txt")))
attempt("write above episode", lambda: write(os.path.join(repo, "..", "..", "escaped.txt")))
for i, path in enumerate(p for p in os.environ.get("PROBE_WRITE", "").split(":") if p):
    attempt(f"write outside {i}", lambda path=path: write(path))
for i, path in enumerate(p for p in os.environ.get("PROBE_READ", "").split(":") if p):
    attempt(f"read outside {i}", lambda path=path: read(path))
attempt("read home config", lambda: read(os.path.join(os.environ["HOME"], "config.txt")))
if os.environ.get("PROBE_PORT"):
    port = int(os.environ["PROBE_PORT"])
    attempt("connect host loopback", lambda: socket.create_connection(("127.0.0.1", port), timeout=3).close())
print(json.dumps(report, sort_keys=True))
