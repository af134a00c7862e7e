"""mergeforge's pytest fork server, shipped inside the mergeforge binary and started by
it inside the sandbox, in a private copy of a substrate's HEAD tree.

    python mergeforge_forkserver.py LOG PYTEST_ARG...

It imports pytest and runs one `--collect-only` session (so pytest, its plugins, the
conftest files, the project and every test module are imported, assertions rewritten),
then answers requests, one JSON object a line on stdin, one at a time:

    {"output": FILE, "env": {NAME: VALUE}, "changed": [FILE...], "mode": "swap"|"fresh"}

For each it forks a child that starts a new process group, sends its stdout and stderr to
FILE, sets the variables, and runs `pytest.main(PYTEST_ARG...)` in the work tree (the
caller has already written the changed files there). Before that, in "swap" mode it
swaps in the new code of the changed files' functions; in "fresh" mode it forgets every
module of the work tree (the project, its tests, conftest files), so pytest imports them
all again from the changed tree, as a new process would (this serves trees that do not
even parse). The server replies `{"pid": N}` when the child starts and `{"status": S}`
when it ends (an exit code, or minus the signal number).

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
            consts.append(("function", const.co_qualname) if const.co_flags & _CO_OPTIMIZED else _shape(const))
        else:
            consts.append((type(const).__name__, repr(const)))
    return (code.co_code, code.co_names, code.co_varnames, tuple(consts))


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
        wanted = set(self.filenames.values())
        self.by_module = wanted
        self.live = {}
        for obj in gc.get_objects():
            if type(obj) is types.FunctionType and obj.__code__.co_filename in wanted:
                code = obj.__code__
                self.live.setdefault((code.co_filename, code.co_qualname, code.co_firstlineno), []).append(obj)
        self.head_code = {}

    def forget_modules(self):
        """Drops the work tree's modules, so that they are imported again."""
        import importlib

        for name, module in list(sys.modules.items()):
            if getattr(module, "__file__", None) in self.by_module:
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
                key = (old.co_qualname, old.co_firstlineno)
                if key in seen:
                    raise Refused("two functions %s at line %d in %s" % (key + (path,)))
                seen.add(key)
                if old != new:
                    for function in self.live.get((filename, old.co_qualname, old.co_firstlineno), ()):
                        if new.co_freevars != function.__code__.co_freevars:
                            raise Refused("free variables of %s changed" % old.co_qualname)
                        replacements.append((function, new))
        for function, new in replacements:
            old = function.__code__
            function.__code__ = new
            if _docstring(old) is not None and function.__doc__ == _docstring(old):
                function.__doc__ = _docstring(new)


def _docstring(code):
    first = code.co_consts[0] if code.co_consts else None
    return first if isinstance(first, str) else None


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

    status = pytest.main(list(pytest_args))
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

    status = pytest.main(list(pytest_args) + ["--collect-only", "-q"])
    sys.stdout.flush()
    sys.stderr.flush()
    functions = _Functions(os.getcwd())
    for filename in functions.filenames.values():
        functions.head(filename)
    # Later collections skip what warm-up left on the heap, and children share its pages.
    gc.collect()
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
        _, wait_status = os.waitpid(pid, 0)
        _send(control, {"status": os.waitstatus_to_exitcode(wait_status)})


if __name__ == "__main__":
    main()
