"""mergeforge's pytest fork server, shipped inside the mergeforge binary and started by
it inside the sandbox, in a private copy of a substrate's HEAD tree.

    python mergeforge_forkserver.py LOG PYTEST_ARG...

It imports pytest and runs one `--collect-only` session (so pytest, its plugins, the
conftest files, the project and every test module are imported, assertions rewritten),
then answers requests, one JSON object a line on stdin, one at a time:

    {"output": FILE, "env": {NAME: VALUE}, "changed": [FILE...], "mode": "swap"|"fresh",
     "args": [ARG...]}

For each it forks a child that starts a new process group, sends its stdout and stderr to
FILE, sets the variables, and runs `pytest.main(PYTEST_ARG... ARG...)` in the work tree (the
caller has already written the changed files there). Before that, in "swap" mode it
swaps in the new code of the changed files' functions; in "fresh" mode it forgets every
module of the work tree (the project, its tests, conftest files), so pytest imports them
all again from the changed tree, as a new process would (this serves trees that do not
even parse). The server replies `{"pid": N}` when the child starts and `{"status": S,
"cpu_us": C}` when it ends: an exit code, or minus the signal number, and the CPU time
in microseconds the child and the descendants it reaped used (its time limit is CPU
time; the caller reads it while the child runs and kills it past the limit).

Swapping is exact only when a file's module-level and class-body code is unchanged: then
re-importing the file would rebuild the same objects around the new function bodies. The
child checks that (comparing compiled code, line numbers aside) and that every changed
function's new code fits its function object (same free variables); if not, it exits
with REFUSED before running anything, and the caller runs the tests in a fresh process.
"""

import gc
import json
import os
import sys
import tempfile
import types

REFUSED = 86
_CO_OPTIMIZED = 0x1


def _send(channel, message):
    channel.write(json.dumps(message) + "\n")
    channel.flush()


def _outermost_functions(code):
    """The function code objects defined directly in module or class-body code."""
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_flags & _CO_OPTIMIZED:
                yield const
            else:
                yield from _outermost_functions(const)


def _shape(code):
    """Module-level or class-body code with functions and line numbers left out."""
    consts = []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            consts.append(("function", _qualname(const)) if const.co_flags & _CO_OPTIMIZED else _shape(const))
        else:
            consts.append((type(const).__name__, repr(const)))
    return (code.co_code, code.co_names, code.co_varnames, tuple(consts))


def _qualname(code):
    """A code object's qualified name (Python 3.11 on), else its plain name: with the
    first line number beside it, a function is still found by it."""
    return getattr(code, "co_qualname", code.co_name)


class Refused(Exception):
    pass


class _Functions:
    """The live functions of the work tree's imported modules, indexed at warm-up (the
    heap is then frozen, so a child cannot find them by walking the collector), and
    each module file's HEAD code."""

    def __init__(self, root):
        root = os.path.realpath(root) + os.sep
        self.filenames = {}
        for module in list(sys.modules.values()):
            filename = getattr(module, "__file__", None)
            if filename and filename.endswith(".py") and os.path.realpath(filename).startswith(root):
                self.filenames[os.path.realpath(filename)] = filename
        self.own_files = set(self.filenames.values())
        self.live = {}
        for obj in gc.get_objects():
            if type(obj) is types.FunctionType and obj.__code__.co_filename in self.own_files:
                code = obj.__code__
                self.live.setdefault((code.co_filename, _qualname(code), code.co_firstlineno), []).append(obj)
        self.head_code = {}

    def forget_modules(self):
        """Drops the work tree's modules, so that they are imported again."""
        import importlib

        for name, module in list(sys.modules.items()):
            if getattr(module, "__file__", None) in self.own_files:
                del sys.modules[name]
        importlib.invalidate_caches()

    def head(self, filename):
        """The code HEAD's text of `filename` compiles to (read while the tree is HEAD)."""
        if filename not in self.head_code:
            with open(filename, "rb") as f:
                self.head_code[filename] = compile(f.read(), filename, "exec", dont_inherit=True)
        return self.head_code[filename]

    def swap(self, paths):
        """Gives the live functions of each changed file the code of its new text."""
        replacements = []
        for path in paths:
            filename = self.filenames.get(os.path.realpath(path))
            if filename is None:
                continue  # not imported: the tests import it fresh from the work tree
            old_top = self.head(filename)
            with open(path, "rb") as f:
                new_top = compile(f.read(), filename, "exec", dont_inherit=True)
            if _shape(old_top) != _shape(new_top):
                raise Refused("module-level code of %s changed" % path)
            seen = set()
            for old, new in zip(_outermost_functions(old_top), _outermost_functions(new_top)):
                key = (_qualname(old), old.co_firstlineno)
                if key in seen:
                    raise Refused("two functions %s at line %d in %s" % (key + (path,)))
                seen.add(key)
                if old != new:
                    for function in self.live.get((filename, _qualname(old), old.co_firstlineno), ()):
                        if new.co_freevars != function.__code__.co_freevars:
                            raise Refused("free variables of %s changed" % _qualname(old))
                        replacements.append((function, new))
        for function, new in replacements:
            old = function.__code__
            function.__code__ = new
            if _docstring(old) is not None and function.__doc__ == _docstring(old):
                function.__doc__ = _docstring(new)


def _docstring(code):
    first = code.co_consts[0] if code.co_consts else None
    return first if isinstance(first, str) else None


def _statement_starts(node):
    """pytest's `get_statement_startend2` list for a module's AST, computed once."""
    import ast

    values = []
    for x in ast.walk(node):
        if isinstance(x, (ast.stmt, ast.ExceptHandler)):
            if isinstance(x, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                for d in x.decorator_list:
                    values.append(d.lineno - 1)
            values.append(x.lineno - 1)
            for name in ("finalbody", "orelse"):
                val = getattr(x, name, None)
                if val:
                    values.append(val[0].lineno - 1 - 1)
    values.sort()
    return values


def _remember_statement_ranges(paths):
    """Makes pytest's traceback rendering look statement ranges up instead of parsing
    and walking the whole file for every traceback entry (half a second for a collection
    error through two large modules). The ranges of `paths` are computed here, before
    any fork; other files (a changed one) take pytest's own path. Results are the same:
    the lookup is pytest's own bisection over the same list."""
    import ast
    from bisect import bisect_right

    try:
        from _pytest._code import code as code_module
        from _pytest._code import source as source_module
    except ImportError:
        return
    original_range = getattr(source_module, "getstatementrange_ast", None)
    original_startend = getattr(source_module, "get_statement_startend2", None)
    if original_range is None or original_startend is None:
        return
    by_content = {}
    starts = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            tree = ast.parse(text, "source", "exec")
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            continue
        content = "\n".join(line.rstrip() for line in text.splitlines(True))
        token = ast.Module(body=[], type_ignores=[])
        by_content[content] = token
        starts[id(token)] = _statement_starts(tree)

    def startend(lineno, node):
        values = starts.get(id(node))
        if values is None:
            return original_startend(lineno, node)
        index = bisect_right(values, lineno)
        return values[index - 1], (None if index >= len(values) else values[index])

    def statement_range(lineno, source, assertion=False, astnode=None):
        if astnode is None:
            astnode = by_content.get(str(source))
        return original_range(lineno, source, assertion, astnode)

    source_module.get_statement_startend2 = startend
    source_module.getstatementrange_ast = statement_range
    if getattr(code_module, "getstatementrange_ast", None) is original_range:
        code_module.getstatementrange_ast = statement_range


def _python_files(root, modules):
    """The work tree's Python files and those of pytest and pluggy (their frames are in
    every collection error's traceback)."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                yield os.path.join(folder, name)
    for name, module in list(modules.items()):
        filename = getattr(module, "__file__", None)
        if filename and filename.endswith(".py") and name.split(".")[0] in ("_pytest", "pytest", "pluggy"):
            yield filename


def _drop_bytecode(paths):
    """Removes the cached bytecode of `paths` (Python's and pytest's), which a file
    rewritten within the same second with the same size could otherwise pass for."""
    for path in paths:
        stem = os.path.basename(path)[:-3] + "."
        for variant in {os.path.abspath(path), os.path.realpath(path)}:
            folder = os.path.join(sys.pycache_prefix, os.path.dirname(variant).lstrip(os.sep))
            try:
                names = os.listdir(folder)
            except OSError:
                continue
            for name in names:
                if name.startswith(stem) and name.endswith(".pyc"):
                    os.unlink(os.path.join(folder, name))


def _child(request, pytest_args, functions):
    os.setpgid(0, 0)
    output = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(output, 1)
    os.dup2(output, 2)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.environ.update(request["env"])
    tempfile.tempdir = None
    import linecache

    linecache.clearcache()
    _drop_bytecode(request["changed"])
    try:
        if request.get("mode") == "fresh":
            functions.forget_modules()
        else:
            functions.swap(request["changed"])
    except (Refused, SyntaxError, ValueError) as refused:
        sys.stderr.write("mergeforge fork server: refused: %s\n" % refused)
        sys.stderr.flush()
        os._exit(REFUSED)
    import pytest

    status = pytest.main(list(pytest_args) + list(request.get("args", [])))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(int(status))


def main():
    log, pytest_args = sys.argv[1], sys.argv[2:]
    # As under `python -m pytest`: the working directory, not this file's, leads sys.path.
    sys.path[0] = os.getcwd()
    control = os.fdopen(os.dup(1), "w")
    requests = os.fdopen(os.dup(0), "r")
    sink = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(sink, 1)
    os.dup2(sink, 2)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    import pytest

    # Warm-up leaves the bytecode of what it imports (pytest's rewritten test modules
    # too) in a folder of the sandbox, so that children importing afresh skip compiling
    # unchanged files; children write none, and drop that of the files they change.
    sys.pycache_prefix = os.path.join(os.path.dirname(os.path.abspath(log)), "pycache")
    sys.dont_write_bytecode = False
    status = pytest.main(list(pytest_args) + ["--collect-only", "-q"])
    sys.dont_write_bytecode = True
    sys.stdout.flush()
    sys.stderr.flush()
    functions = _Functions(os.getcwd())
    for filename in functions.filenames.values():
        functions.head(filename)
    _remember_statement_ranges(sorted(set(_python_files(os.getcwd(), sys.modules))))
    # Later collections skip what warm-up left on the heap, and children share its pages.
    gc.collect()
    if hasattr(gc, "freeze"):  # Python 3.7 on
        gc.freeze()
    _send(control, {"ready": int(status)})
    for line in requests:
        if not line.strip():
            continue
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                _child(request, pytest_args, functions)
            finally:
                os._exit(REFUSED)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass  # the child already did it, or is gone
        _send(control, {"pid": pid})
        _, wait_status, usage = os.wait4(pid, 0)
        cpu_us = int(round((usage.ru_utime + usage.ru_stime) * 1e6))
        _send(control, {"status": _exit_code(wait_status), "cpu_us": cpu_us})


def _exit_code(wait_status):
    """An exit code, or minus the signal number (os.waitstatus_to_exitcode, which
    Python has from 3.9 on)."""
    if os.WIFSIGNALED(wait_status):
        return -os.WTERMSIG(wait_status)
    return os.WEXITSTATUS(wait_status)


if __name__ == "__main__":
    main()
