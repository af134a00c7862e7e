"""Writes external_attributes.txt: the public attribute names of Python's builtin types and
of common standard-library classes and modules. rename-method never renames a method of
one of these names: an access `x.name` could be one of them (`sys.stdout.write`), and a
project's method of that name often implements a protocol the standard library calls.

Run with the interpreter gen-tasks uses (`python3 external_attributes.py`).
"""

import io, logging, logging.handlers, threading, collections, datetime, pathlib, re, unittest, unittest.mock, asyncio, json, string, enum, contextlib, queue, socket, subprocess, decimal, fractions, argparse, types, typing, abc, weakref, functools, itertools, os, sys, inspect, traceback, warnings, codecs, csv, textwrap, concurrent.futures, email.message, http.client, urllib.parse, tempfile, shutil, struct, array, copy, pickle, time, random, hashlib, numbers
objs = [object, str, bytes, bytearray, list, dict, set, frozenset, tuple, int, float, complex, bool, type, BaseException, Exception, memoryview, range, slice, property, staticmethod, classmethod,
 io.TextIOWrapper, io.BytesIO, io.StringIO, io.BufferedReader, io.BufferedWriter, io.FileIO, io.IOBase,
 logging.Logger, logging.LoggerAdapter, logging.Handler, logging.StreamHandler, logging.FileHandler, logging.Formatter, logging.Filter, logging.LogRecord, logging.handlers.QueueHandler, logging.handlers.MemoryHandler,
 threading.Thread, threading.Lock().__class__, threading.RLock().__class__, threading.Event, threading.Condition, threading.local,
 collections.OrderedDict, collections.defaultdict, collections.deque, collections.Counter, collections.ChainMap, collections.abc.Mapping, collections.abc.MutableMapping, collections.abc.Sequence, collections.abc.MutableSequence, collections.abc.Set, collections.abc.MutableSet, collections.abc.Iterator, collections.abc.Generator, collections.abc.Coroutine, collections.abc.AsyncGenerator,
 datetime.datetime, datetime.date, datetime.time, datetime.timedelta, datetime.tzinfo, datetime.timezone,
 pathlib.Path, pathlib.PurePath, re.Pattern, re.Match, unittest.TestCase, unittest.mock.Mock, unittest.mock.MagicMock,
 asyncio.AbstractEventLoop, asyncio.Future, asyncio.Task, asyncio.Queue, asyncio.StreamWriter, asyncio.StreamReader, asyncio.Lock, asyncio.Event,
 json.JSONEncoder, json.JSONDecoder, string.Formatter, string.Template, enum.Enum, contextlib.ExitStack, contextlib.AbstractContextManager, queue.Queue, socket.socket, subprocess.Popen, decimal.Decimal, fractions.Fraction,
 argparse.ArgumentParser, argparse.Namespace, argparse.Action, types.SimpleNamespace, types.ModuleType, types.FunctionType, types.CodeType, types.FrameType, types.TracebackType, types.GeneratorType, typing.NamedTuple, weakref.ref, weakref.WeakValueDictionary, functools.partial,
 inspect.Signature, inspect.Parameter, inspect.BoundArguments, traceback.TracebackException, traceback.FrameSummary, traceback.StackSummary, warnings.WarningMessage, codecs.StreamWriter, csv.DictWriter, csv.DictReader, textwrap.TextWrapper, concurrent.futures.Future, concurrent.futures.Executor,
 email.message.Message, http.client.HTTPResponse, urllib.parse.ParseResult, tempfile.TemporaryDirectory, struct.Struct, array.array, random.Random, os.stat_result, time.struct_time, numbers.Number, sys.flags.__class__]
names = set()
for o in objs:
    names.update(n for n in dir(o) if not n.startswith('_'))
for m in [os, os.path, sys, shutil, copy, pickle, json, re, time, inspect, functools, itertools, logging, warnings, traceback, asyncio, contextlib, random, hashlib, string, textwrap, types, typing]:
    names.update(n for n in dir(m) if not n.startswith('_'))
HEADER = "# Attribute names of Python's builtin types and common standard-library classes and\n# modules, which rename-method never renames. Made by external_attributes.py.\n"
out = pathlib.Path(__file__).with_name("external_attributes.txt")
out.write_text(HEADER + "\n".join(sorted(names)) + "\n")
print(f"{out}: {len(names)} names")
