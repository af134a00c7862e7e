"""Per-key rate limit policies backed by token buckets."""

from .bucket import LimitError, TokenBucket


class Policy:
    """Allow ``rate`` units of cost per ``per`` time units, plus ``burst``
    extra units of headroom; requests cost ``cost`` units unless told."""

    def __init__(self, name, rate, per=1, burst=0, cost=1):
        if not name:
            raise LimitError("policy name must not be empty")
        if rate < 1:
            raise LimitError("rate must be at least 1")
        if per < 1:
            raise LimitError("period must be at least 1")
        if burst < 0:
            raise LimitError("burst must not be negative")
        if cost < 1 or cost > rate + burst:
            raise LimitError("default cost must be between 1 and the capacity")
        self.name = name
        self.rate = rate
        self.per = per
        self.burst = burst
        self.cost = cost

    @property
    def capacity(self):
        return self.rate + self.burst

    def new_bucket(self, now):
        return TokenBucket(self.capacity, refill_amount=self.rate, refill_every=self.per,
                           now=now)

    def __repr__(self):
        return f"Policy({self.name!r}, rate={self.rate}, per={self.per}, burst={self.burst})"


class Decision:
    """Outcome of a check: whether it was allowed, tokens left, wait time."""

    def __init__(self, allowed, remaining, retry_after=0):
        self.allowed = allowed
        self.remaining = remaining
        self.retry_after = retry_after

    def __eq__(self, other):
        if not isinstance(other, Decision):
            return NotImplemented
        return (self.allowed, self.remaining, self.retry_after) == (
            other.allowed, other.remaining, other.retry_after)

    def __repr__(self):
        return f"Decision({self.allowed}, {self.remaining}, {self.retry_after})"


class Limiter:
    """Chooses a policy per key by longest matching prefix."""

    def __init__(self, default):
        self.default = default
        self._rules = []
        self._buckets = {}

    def add_rule(self, prefix, policy):
        if not prefix:
            raise LimitError("prefix must not be empty")
        for existing, _ in self._rules:
            if existing == prefix:
                raise LimitError(f"duplicate rule for {prefix!r}")
        self._rules.append((prefix, policy))

    def policy_for(self, key):
        best = self.default
        best_length = 0
        for prefix, policy in self._rules:
            if key.startswith(prefix) and len(prefix) > best_length:
                best = policy
                best_length = len(prefix)
        return best

    def _bucket(self, key, now):
        policy = self.policy_for(key)
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = policy.new_bucket(now)
            self._buckets[key] = bucket
        return bucket, policy

    def check(self, key, now, cost=None):
        """Spend ``cost`` (default: the policy's cost) for ``key`` at ``now``."""
        bucket, policy = self._bucket(key, now)
        if cost is None:
            cost = policy.cost
        if bucket.try_take(now, cost=cost):
            return Decision(True, bucket.tokens)
        return Decision(False, bucket.tokens, bucket.wait_time(now, cost=cost))

    def peek(self, key, now):
        bucket, _ = self._bucket(key, now)
        return bucket.available(now)

    def forget(self, key):
        if key in self._buckets:
            del self._buckets[key]
            return True
        return False

    def keys(self):
        return sorted(self._buckets)
