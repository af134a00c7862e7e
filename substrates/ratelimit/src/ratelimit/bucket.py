"""Token bucket with explicitly injected integer time values."""


class LimitError(ValueError):
    """Raised for invalid limiter settings, costs or times."""


class TokenBucket:
    """Holds up to ``capacity`` tokens; ``refill_amount`` are added every
    ``refill_every`` time units, counted from ``now`` at creation."""

    def __init__(self, capacity, refill_amount=1, refill_every=1, now=0, initial=None):
        if capacity < 1:
            raise LimitError("capacity must be at least 1")
        if refill_amount < 1:
            raise LimitError("refill amount must be at least 1")
        if refill_every < 1:
            raise LimitError("refill interval must be at least 1")
        if initial is None:
            initial = capacity
        if initial < 0 or initial > capacity:
            raise LimitError("initial tokens must be between 0 and capacity")
        self.capacity = capacity
        self.refill_amount = refill_amount
        self.refill_every = refill_every
        self.tokens = initial
        self.last = now

    def _refill(self, now):
        if now < self.last:
            raise LimitError("time went backwards")
        intervals = (now - self.last) // self.refill_every
        self.tokens = min(self.capacity, self.tokens + intervals * self.refill_amount)
        self.last += intervals * self.refill_every

    def _check_cost(self, cost):
        if cost < 1:
            raise LimitError("cost must be at least 1")
        if cost > self.capacity:
            raise LimitError(f"cost {cost} exceeds capacity {self.capacity}")

    def available(self, now):
        self._refill(now)
        return self.tokens

    def try_take(self, now, cost=1):
        """Take ``cost`` tokens if possible; return whether it succeeded."""
        self._check_cost(cost)
        self._refill(now)
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False

    def wait_time(self, now, cost=1):
        """Time units from ``now`` until ``cost`` tokens will be available."""
        self._check_cost(cost)
        self._refill(now)
        if self.tokens >= cost:
            return 0
        missing = cost - self.tokens
        intervals = (missing + self.refill_amount - 1) // self.refill_amount
        return self.last + intervals * self.refill_every - now

    def time_to_full(self, now):
        """Time units from ``now`` until the bucket is full again."""
        return self.wait_time(now, cost=self.capacity)
