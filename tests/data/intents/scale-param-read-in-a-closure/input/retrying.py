"""A decorator retrying a function that fails."""

import functools
import time


def retry(attempts=3, delay=0.5, max_delay=0):
    """Retry the decorated function up to ``attempts`` times.

    Args:
        attempts (int): How many calls before giving up.
        delay (int|float): Seconds to sleep after the first failure, doubled after each.
        max_delay (int|float): Longest sleep in seconds; ``0`` for no limit.
    """
    if not isinstance(delay, (int, float)) or delay < 0:
        raise ValueError("delay must be a number of at least 0")

    def decorator(func):
        @functools.wraps(func)
        def decorated(*args, **kwargs):
            pause = delay
            for attempt in range(1, attempts + 1):
                try:
                    return func(*args, **kwargs)
                except OSError:
                    if attempt == attempts:
                        raise
                    if max_delay:
                        pause = min(pause, max_delay)
                    if delay:
                        time.sleep(pause)
                    pause *= 2

        return decorated

    return decorator
