"""Runs `python -m pytest ARGS` requests in forked children of one interpreter that has
already imported pytest and its built-in plugins (tests/it/common.rs, `tests_pass`).

Each child starts as `python -m pytest` would in a fresh interpreter for what the tests
can see: working directory, environment, `sys.path` (the directory, then `PYTHONPATH`'s
entries, then the interpreter's own), `sys.argv`, no bytecode written, stdin from
/dev/null, output discarded, its own process group. Only the import of pytest is shared,
which is most of a small suite's run time.

Protocol: one JSON object per line on stdin, {"cwd", "args", "env", "timeout_s"}; one
line back per request, {"passed": bool}. A child over its time limit is killed with its
process group and counts as failing.
"""

import importlib
import json
import os
import signal
import sys
import time

import pytest
from _pytest.config import default_plugins

for name in default_plugins:
    try:
        importlib.import_module("_pytest." + name)
    except ImportError:
        pass

BASE_PATH = sys.path[1:]  # without this script's own directory


def child(request):
    os.setpgid(0, 0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    cwd = request["cwd"]
    os.chdir(cwd)
    os.environ.update(request["env"])
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    sys.dont_write_bytecode = True
    entries = [e for e in os.environ.get("PYTHONPATH", "").split(os.pathsep) if e]
    sys.path[:] = [cwd] + entries + BASE_PATH
    sys.argv = [os.path.join(os.path.dirname(pytest.__file__), "__main__.py")] + request["args"]
    code = pytest.main(request["args"])
    sys.stdout.flush()
    os._exit(int(code))


def serve():
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                child(request)
            finally:
                os._exit(70)
        deadline = time.monotonic() + request["timeout_s"]
        status = None
        while status is None:
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = raw
            elif time.monotonic() >= deadline:
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                os.waitpid(pid, 0)
                status = -1
            else:
                time.sleep(0.005)
        passed = status != -1 and os.waitstatus_to_exitcode(status) == 0
        sys.stdout.write(json.dumps({"passed": passed}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()
