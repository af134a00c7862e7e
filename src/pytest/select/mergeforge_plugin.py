"""mergeforge's pytest plugin, shipped inside the mergeforge binary and loaded with
`-p mergeforge_plugin` from a folder of the sandbox (never from the tree under test).

It works in one of two modes, chosen by the environment:

MERGEFORGE_TRACE=<file>
    Records, with sys.settrace ('call' events only), which functions of the project's
    own source files each test runs, and writes a coverage map to <file>: per test node
    id the functions it ran (during its setup, call and function-scoped fixtures);
    the functions that ran outside any test (imports, collection, fixtures of a wider
    scope, teardowns); and for every source file the line span of each function code
    object and the lines of its module-level and class-body code.

    It also records each test's duration (setup, call and teardown, in seconds) and
    how long the traced session took to start and collect.

    Python processes a test starts (a command-line tool run in a subprocess) are traced
    too: the plugin puts a sitecustomize module first on the PYTHONPATH its children
    inherit, which traces the child the same way and, when the child exits, leaves the
    functions it ran in <file>.sub/ for the test that was running when it started
    (or outside any test); the session merges them into the map.

MERGEFORGE_SELECT=<file>
    Runs only the node ids listed in <file> (one a line). With MERGEFORGE_NARROW=1 the
    collection itself is narrowed to those ids (the command's own path arguments are
    replaced by them, so only the files holding selected tests are imported); if that
    does not collect every listed id, the plugin writes <file>.mismatch and exits with
    status 4, and the caller runs again without narrowing. Without it, the others are
    deselected after a normal collection. If a listed id is not collected, nothing is
    deselected (the full suite runs).

Files under test folders, test_*.py, *_test.py and conftest.py are not source files.
"""

import dis
import json
import os
import sys
import threading
import time
import types

import pytest

VERSION = 3
OUTSIDE = None
ROOT = os.path.realpath(os.getcwd())
_STARTED = time.monotonic()
_COLLECTED = [_STARTED]
_CO_OPTIMIZED = 0x1


def _relative(filename):
    """The source file's path relative to the work dir, or None if it is not one."""
    if not filename or filename.startswith("<"):
        return None
    path = os.path.realpath(os.path.join(ROOT, filename))
    if not path.startswith(ROOT + os.sep) or not path.endswith(".py"):
        return None
    rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
    return None if _is_test_file(rel) else rel


def _is_test_file(rel):
    parts = rel.split("/")
    name = parts[-1]
    if name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
        return True
    return any(p in ("test", "tests", "testing") or p.startswith(".") for p in parts[:-1])


class _Tracer:
    def __init__(self):
        self.files = {}
        self.durations = {}
        self.runs = {OUTSIDE: set()}
        self.stack = [OUTSIDE]
        self.current = self.runs[OUTSIDE]

    def trace(self, frame, event, arg):
        if event == "call":
            code = frame.f_code
            filename = code.co_filename
            rel = self.files.get(filename, False)
            if rel is False:
                rel = self.files[filename] = _relative(filename)
            if rel is not None:
                self.current.add("%s:%d:%s" % (rel, code.co_firstlineno, code.co_name))
        return None

    def push(self, context):
        self.stack.append(context)
        self.current = self.runs.setdefault(context, set())
        os.environ[_CHILD_TEST] = context or ""

    def pop(self):
        self.stack.pop()
        self.current = self.runs.setdefault(self.stack[-1], set())
        os.environ[_CHILD_TEST] = self.stack[-1] or ""

    def merge_children(self, folder):
        """Adds what traced child processes ran (see _CHILD_TRACER) to their tests."""
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return
        for name in names:
            if not name.endswith(".json"):
                continue
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    child = json.load(f)
            except (OSError, ValueError):
                continue
            self.runs.setdefault(child.get("test") or OUTSIDE, set()).update(child.get("ran", []))


# What a traced session's child processes run first (as sitecustomize): the same trace,
# left in a file of the children's folder when the child exits, for the test that was
# running when it started. Only its own environment tells it where things are.
_CHILD_TRACER = '''
import atexit, os, sys, threading
_root = os.environ.get("MERGEFORGE_TRACE_ROOT", "")
_out = os.environ.get("MERGEFORGE_TRACE_CHILDREN", "")
_test = os.environ.get("MERGEFORGE_TRACE_TEST", "")
_cwd = os.getcwd()
_ran = set()
_files = {}

def _rel(filename):
    if not filename or filename.startswith("<"):
        return None
    path = os.path.realpath(os.path.join(_cwd, filename))
    if not path.startswith(_root + os.sep) or not path.endswith(".py"):
        return None
    rel = os.path.relpath(path, _root).replace(os.sep, "/")
    parts = rel.split("/")
    name = parts[-1]
    if name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py"):
        return None
    if any(p in ("test", "tests", "testing") or p.startswith(".") for p in parts[:-1]):
        return None
    return rel

def _trace(frame, event, arg):
    if event == "call":
        code = frame.f_code
        rel = _files.get(code.co_filename, False)
        if rel is False:
            rel = _files[code.co_filename] = _rel(code.co_filename)
        if rel is not None:
            _ran.add("%s:%d:%s" % (rel, code.co_firstlineno, code.co_name))
    return None

def _write():
    sys.settrace(None)
    import json
    path = os.path.join(_out, "%d-%d.json" % (os.getpid(), id(_ran)))
    try:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump({"test": _test, "ran": sorted(_ran)}, f)
        os.replace(path + ".tmp", path)
    except OSError:
        pass

if _root and _out:
    atexit.register(_write)
    sys.settrace(_trace)
    threading.settrace(_trace)
    # Another sitecustomize further along the path still runs.
    import importlib.machinery, importlib.util
    _here = os.path.dirname(os.path.abspath(__file__))
    _rest = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    _spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _rest)
    if _spec is not None and _spec.loader is not None:
        _spec.loader.exec_module(importlib.util.module_from_spec(_spec))
'''

_CHILD_TEST = "MERGEFORGE_TRACE_TEST"


def _children_folder(out):
    return out + ".sub"


def _trace_children(out):
    """Makes Python processes started from here on trace themselves (_CHILD_TRACER)."""
    folder = _children_folder(out)
    site = os.path.join(folder, "site")
    os.makedirs(site, exist_ok=True)
    with open(os.path.join(site, "sitecustomize.py"), "w", encoding="utf-8") as f:
        f.write(_CHILD_TRACER)
    path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = site + (os.pathsep + path if path else "")
    os.environ["MERGEFORGE_TRACE_ROOT"] = ROOT
    os.environ["MERGEFORGE_TRACE_CHILDREN"] = folder
    os.environ[_CHILD_TEST] = ""


_TRACER = None
if os.environ.get("MERGEFORGE_TRACE"):
    # Tracing starts when pytest imports this plugin, before any conftest is loaded.
    _TRACER = _Tracer()
    _trace_children(os.environ["MERGEFORGE_TRACE"])
    sys.settrace(_TRACER.trace)
    threading.settrace(_TRACER.trace)


def _in_context(context):
    if _TRACER is None:
        yield
        return
    _TRACER.push(context)
    try:
        yield
    finally:
        _TRACER.pop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    yield from _in_context(item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    yield from _in_context(item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield from _in_context(OUTSIDE)


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef, request):
    if _TRACER is not None and fixturedef.scope != "function":
        yield from _in_context(OUTSIDE)
    else:
        yield


def pytest_collection_finish(session):
    _COLLECTED[0] = time.monotonic()


def pytest_runtest_logreport(report):
    if _TRACER is not None:
        _TRACER.durations[report.nodeid] = _TRACER.durations.get(report.nodeid, 0.0) + report.duration


def _wanted(listing):
    with open(listing, encoding="utf-8") as f:
        return {line.rstrip("\n") for line in f if line.strip()}


def _narrowing():
    listing = os.environ.get("MERGEFORGE_SELECT")
    return listing if listing and os.environ.get("MERGEFORGE_NARROW") == "1" else None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Narrows the collection to the files and tests of the listed node ids."""
    listing = _narrowing()
    config = session.config
    if listing is None or getattr(config.option, "pyargs", False):
        return
    root = str(config.rootpath)
    args = []
    for nodeid in sorted(_wanted(listing)):
        path, sep, rest = nodeid.partition("::")
        args.append(os.path.join(root, path) + sep + rest)
    if args:
        config.args = args


def pytest_collection_modifyitems(session, config, items):
    listing = os.environ.get("MERGEFORGE_SELECT")
    if not listing:
        return
    wanted = _wanted(listing)
    if not wanted <= {item.nodeid for item in items}:
        if _narrowing() is not None:
            with open(listing + ".mismatch", "w", encoding="utf-8") as f:
                f.write("\n".join(sorted(wanted - {item.nodeid for item in items})) + "\n")
            pytest.exit("mergeforge: the narrowed collection missed selected tests", returncode=4)
        return
    keep = [item for item in items if item.nodeid in wanted]
    drop = [item for item in items if item.nodeid not in wanted]
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def _code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _lines(code):
    """The line numbers of a code object's instructions (co_lines from Python 3.10 on;
    before it, the line starts of co_lnotab, which name the same lines)."""
    if hasattr(code, "co_lines"):
        return [line for _, _, line in code.co_lines() if line is not None]
    return [line for _, line in dis.findlinestarts(code)]


def _last_line(code):
    lines = _lines(code)
    lines.append(code.co_firstlineno)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            lines.append(_last_line(const))
    return max(lines)


def _file_map(path):
    with open(path, "rb") as f:
        source = f.read()
    try:
        top = compile(source, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    functions = []
    module_lines = set()
    for code in _code_objects(top):
        if code.co_flags & _CO_OPTIMIZED:
            functions.append([code.co_firstlineno, _last_line(code), code.co_name])
        else:
            module_lines.update(_lines(code))
    return {"functions": sorted(functions), "module_lines": sorted(module_lines)}


def _source_files():
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            path = os.path.join(folder, name)
            if _relative(path) is not None:
                yield path


def pytest_sessionfinish(session, exitstatus):
    out = os.environ.get("MERGEFORGE_TRACE")
    if _TRACER is None or not out:
        return
    sys.settrace(None)
    threading.settrace(None)
    _TRACER.merge_children(_children_folder(out))
    files = {}
    for path in _source_files():
        mapped = _file_map(path)
        if mapped is not None:
            files[_relative(path)] = mapped
    tests = {node: sorted(ran) for node, ran in _TRACER.runs.items() if node is not OUTSIDE}
    for item in session.items:
        tests.setdefault(item.nodeid, [])
    document = {
        "version": VERSION,
        "exit_status": int(exitstatus),
        "files": files,
        "tests": tests,
        "outside_tests": sorted(_TRACER.runs[OUTSIDE]),
        "collect_seconds": round(_COLLECTED[0] - _STARTED, 3),
        "durations": {node: round(seconds, 4) for node, seconds in sorted(_TRACER.durations.items())},
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(document, f, sort_keys=True, separators=(",", ":"))
        f.write("\n")
