"""Timing pieces of work."""

import time


def elapsed(start, now=None):
    """Return the milliseconds since ``start`` (a ``time.monotonic()`` reading)."""
    end = time.monotonic() if now is None else now
    return (end - start) * 1000


def report(name, start, now=None):
    return f"{name} took {elapsed(start, now) / 1000:.1f}s"
