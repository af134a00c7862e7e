"""Running a function later."""

import time


def delay(func, wait, *args):
    """Call ``func`` with ``args`` after ``wait`` milliseconds.

    Args:
        func (callable): Function to call.
        wait (int): Milliseconds to sleep first.
    """
    time.sleep(wait / 1000.0)
    return func(*args)
