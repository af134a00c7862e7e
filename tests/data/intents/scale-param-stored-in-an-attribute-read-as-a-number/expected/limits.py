"""Calling a function at most so often."""

import time


def now():
    """The current time in milliseconds."""
    return int(time.time() * 1000)


class Throttle:
    """Call ``func`` at most once per ``wait`` milliseconds."""

    def __init__(self, func, wait):
        self.func = func
        self.wait = wait * 1000
        self.last_result = None
        self.last_call = now() - self.wait

    def __call__(self, *args):
        present = now()
        if present - self.last_call >= self.wait:
            self.last_result = self.func(*args)
            self.last_call = present
        return self.last_result


def throttle(func, wait):
    """Wrap ``func`` so that it runs at most once every ``wait`` milliseconds.

    Args:
        func (callable): Function to throttle.
        wait (int): Milliseconds to wait before calling `func` again.
    """
    return Throttle(func, wait / 1000)
