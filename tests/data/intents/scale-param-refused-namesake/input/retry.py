import time


def retry(func, delay=1):
    """Call ``func`` twice, ``delay`` seconds apart, if the first call fails."""
    try:
        return func()
    except OSError:
        time.sleep(delay)
        return func()

