"""Retrying a function that fails."""

import time


def retry(func, attempts=3, delay=0.5, sleep=time.sleep):
    """Call ``func`` until it succeeds, sleeping ``delay`` seconds between tries."""
    for attempt in range(attempts):
        try:
            return func()
        except OSError:
            if attempt == attempts - 1:
                raise
            sleep(delay)


def backoff(delay, factor=2):
    """The delays of successive tries, each ``factor`` times the last."""
    pause = delay
    while True:
        yield pause
        pause *= factor


def later(delay, func):
    """Schedule ``func`` with the scheduler ``delay``."""
    return delay(func)


def queued(scheduler, func, ticks=5):
    """Hand ``func`` to ``scheduler``, to run ``ticks`` ticks from now."""
    return scheduler.delay(func, ticks)
