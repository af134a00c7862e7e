import time


def deadline(timeout_seconds, now=None):
    """The clock reading ``timeout_seconds`` seconds from ``now``."""
    start = time.monotonic() if now is None else now
    return start + timeout_seconds
