import time


def deadline(timeout_ms, now=None):
    """The clock reading ``timeout_ms`` milliseconds from ``now``."""
    start = time.monotonic() if now is None else now
    return start + timeout_ms / 1000
