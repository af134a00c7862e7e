__all__ = ["FALLBACK_BURST", "allowed"]

FALLBACK_BURST = 5


def allowed(used, burst=None):
    return used < (FALLBACK_BURST if burst is None else burst)
