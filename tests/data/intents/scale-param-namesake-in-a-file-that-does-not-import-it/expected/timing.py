"""Running a function later."""

import time


def delay(func, wait, *args):
    """Call ``func`` with ``args`` after ``wait`` seconds.

    Args:
        func (callable): Function to call.
        wait (int): Seconds to sleep first.
    """
    time.sleep(wait)
    return func(*args)
