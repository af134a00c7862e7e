"""Retrying calls that fail for a while."""

import time


def retry(func, attempts=3, delay=0.5):
    """Call ``func`` until it succeeds, at most ``attempts`` times.

    Args:
        func: What to call.
        attempts: How many calls before giving up.
        delay: Seconds to sleep between two calls.
    """
    for attempt in range(attempts):
        try:
            return func()
        except OSError:
            if attempt == attempts - 1:
                raise
            time.sleep(delay)


def fetch(source, patience=2):
    """Read ``source``, retrying for about ``patience`` seconds."""
    return retry(source.read, attempts=patience * 2, delay=patience / 4)
