__all__ = ["DEFAULT_BURST", "allowed"]

DEFAULT_BURST = 5


def allowed(used, burst=None):
    return used < (DEFAULT_BURST if burst is None else burst)
