"""Window based counters: fixed windows, a sliding log and a sliding counter.

All of them allow at most ``limit`` units of cost within ``size`` time units.
"""

from .bucket import LimitError


def _check_settings(limit, size):
    if limit < 1:
        raise LimitError("limit must be at least 1")
    if size < 1:
        raise LimitError("window size must be at least 1")


def _check_cost(cost, limit):
    if cost < 1:
        raise LimitError("cost must be at least 1")
    if cost > limit:
        raise LimitError(f"cost {cost} exceeds limit {limit}")


class FixedWindow:
    """Counts cost in windows aligned to multiples of ``size``."""

    def __init__(self, limit, size):
        _check_settings(limit, size)
        self.limit = limit
        self.size = size
        self.start = 0
        self.count = 0

    def window_start(self, now):
        return now - now % self.size

    def _roll(self, now):
        start = self.window_start(now)
        if start < self.start:
            raise LimitError("time went backwards")
        if start != self.start:
            self.start = start
            self.count = 0

    def hit(self, now, cost=1):
        _check_cost(cost, self.limit)
        self._roll(now)
        if self.count + cost > self.limit:
            return False
        self.count += cost
        return True

    def remaining(self, now):
        self._roll(now)
        return self.limit - self.count

    def reset_at(self, now):
        return self.window_start(now) + self.size


class SlidingLog:
    """Remembers every accepted hit; a hit at time t expires at t + size."""

    def __init__(self, limit, size):
        _check_settings(limit, size)
        self.limit = limit
        self.size = size
        self.events = []
        self.latest = None

    def _prune(self, now):
        if self.latest is not None and now < self.latest:
            raise LimitError("time went backwards")
        self.latest = now
        kept = []
        for when, cost in self.events:
            if when + self.size > now:
                kept.append((when, cost))
        self.events = kept

    def used(self, now):
        self._prune(now)
        total = 0
        for _, cost in self.events:
            total += cost
        return total

    def hit(self, now, cost=1):
        _check_cost(cost, self.limit)
        if self.used(now) + cost > self.limit:
            return False
        self.events.append((now, cost))
        return True

    def retry_after(self, now, cost=1):
        """Time units until a hit of ``cost`` would be accepted."""
        _check_cost(cost, self.limit)
        excess = self.used(now) + cost - self.limit
        if excess <= 0:
            return 0
        freed = 0
        for when, amount in self.events:
            freed += amount
            if freed >= excess:
                break
        return when + self.size - now


class SlidingCounter:
    """Approximates a sliding window from the current and previous fixed
    windows, weighting the previous count by how much of it still overlaps."""

    def __init__(self, limit, size):
        _check_settings(limit, size)
        self.limit = limit
        self.size = size
        self.start = 0
        self.current = 0
        self.previous = 0

    def _roll(self, now):
        start = now - now % self.size
        if start < self.start:
            raise LimitError("time went backwards")
        if start == self.start + self.size:
            self.previous = self.current
            self.current = 0
        elif start > self.start:
            self.previous = 0
            self.current = 0
        self.start = start

    def estimate(self, now):
        self._roll(now)
        overlap = self.size - (now - self.start)
        weighted = (self.previous * overlap + self.size - 1) // self.size
        return weighted + self.current

    def hit(self, now, cost=1):
        _check_cost(cost, self.limit)
        if self.estimate(now) + cost > self.limit:
            return False
        self.current += cost
        return True
