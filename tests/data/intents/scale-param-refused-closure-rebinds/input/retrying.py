import time


def retry(attempts=3, delay=0.5):
    """Retry the decorated function; sleep ``delay`` seconds between tries."""

    def decorator(func):
        def decorated(*args, delay=delay):
            for attempt in range(attempts):
                try:
                    return func(*args)
                except OSError:
                    time.sleep(delay)
            return func(*args)

        return decorated

    return decorator
