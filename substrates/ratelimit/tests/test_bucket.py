import pytest

from ratelimit import LimitError, TokenBucket


class TestConstruction:
    def test_defaults(self):
        bucket = TokenBucket(3)
        assert bucket.capacity == 3
        assert bucket.refill_amount == 1
        assert bucket.refill_every == 1
        assert bucket.tokens == 3
        assert bucket.last == 0

    def test_initial_tokens(self):
        assert TokenBucket(3, initial=0).tokens == 0
        assert TokenBucket(3, initial=3).tokens == 3
        with pytest.raises(LimitError, match="initial tokens must be between 0 and capacity"):
            TokenBucket(3, initial=4)
        with pytest.raises(LimitError, match="initial tokens"):
            TokenBucket(3, initial=-1)

    @pytest.mark.parametrize(
        "kwargs,message",
        [
            ({"capacity": 0}, "capacity must be at least 1"),
            ({"capacity": 2, "refill_amount": 0}, "refill amount must be at least 1"),
            ({"capacity": 2, "refill_every": 0}, "refill interval must be at least 1"),
        ],
    )
    def test_guards(self, kwargs, message):
        with pytest.raises(LimitError, match=message):
            TokenBucket(**kwargs)

    def test_minimum_settings(self):
        bucket = TokenBucket(1, refill_amount=1, refill_every=1)
        assert bucket.available(0) == 1


class TestRefill:
    def test_refill_on_interval_boundary(self):
        bucket = TokenBucket(5, refill_amount=2, refill_every=3, now=10, initial=0)
        assert bucket.available(12) == 0
        assert bucket.available(13) == 2
        assert bucket.last == 13
        assert bucket.available(15) == 2
        assert bucket.available(16) == 4

    def test_partial_interval_is_kept(self):
        bucket = TokenBucket(10, refill_amount=1, refill_every=4, now=0, initial=0)
        assert bucket.available(6) == 1
        assert bucket.last == 4
        assert bucket.available(8) == 2
        assert bucket.last == 8

    def test_multiple_intervals(self):
        bucket = TokenBucket(10, refill_amount=3, refill_every=2, now=0, initial=1)
        assert bucket.available(5) == 7
        assert bucket.last == 4

    def test_capped_at_capacity(self):
        bucket = TokenBucket(5, refill_amount=2, refill_every=3, now=10, initial=4)
        assert bucket.available(13) == 5
        assert bucket.available(1000) == 5

    def test_time_backwards(self):
        bucket = TokenBucket(5, now=10)
        assert bucket.available(10) == 5
        with pytest.raises(LimitError, match="time went backwards"):
            bucket.available(9)


class TestTake:
    def test_take_and_refuse(self):
        bucket = TokenBucket(5, refill_amount=2, refill_every=3, now=10)
        assert bucket.try_take(10, cost=4) is True
        assert bucket.tokens == 1
        assert bucket.try_take(10, cost=2) is False
        assert bucket.tokens == 1
        assert bucket.try_take(10) is True
        assert bucket.tokens == 0
        assert bucket.try_take(10) is False

    def test_take_exact_tokens(self):
        bucket = TokenBucket(3, now=0)
        assert bucket.try_take(0, cost=3) is True
        assert bucket.tokens == 0

    def test_take_after_refill(self):
        bucket = TokenBucket(3, refill_amount=1, refill_every=5, now=0, initial=0)
        assert bucket.try_take(4) is False
        assert bucket.try_take(5) is True
        assert bucket.tokens == 0

    def test_cost_guards(self):
        bucket = TokenBucket(3)
        with pytest.raises(LimitError, match="cost must be at least 1"):
            bucket.try_take(0, cost=0)
        with pytest.raises(LimitError, match="cost 4 exceeds capacity 3"):
            bucket.try_take(0, cost=4)
        assert bucket.try_take(0, cost=3) is True


class TestWaitTime:
    def test_zero_when_available(self):
        bucket = TokenBucket(5, now=0)
        assert bucket.wait_time(0, cost=5) == 0
        assert bucket.wait_time(0) == 0

    def test_rounds_up_intervals(self):
        bucket = TokenBucket(5, refill_amount=2, refill_every=3, now=10)
        bucket.try_take(10, cost=4)
        # 1 token, need 4: 3 missing -> 2 refills -> ready at 16
        assert bucket.wait_time(11, cost=4) == 5
        assert bucket.wait_time(12, cost=3) == 1
        assert bucket.wait_time(13, cost=3) == 0

    def test_exact_multiple(self):
        bucket = TokenBucket(6, refill_amount=2, refill_every=3, now=0, initial=0)
        assert bucket.wait_time(0, cost=4) == 6
        assert bucket.wait_time(1, cost=2) == 2
        assert bucket.wait_time(2, cost=1) == 1

    def test_full_bucket_after_some_time(self):
        bucket = TokenBucket(5, refill_every=10, now=0)
        assert bucket.wait_time(5, cost=5) == 0
        assert bucket.wait_time(7) == 0

    def test_refills_before_computing(self):
        bucket = TokenBucket(3, refill_amount=1, refill_every=5, now=0, initial=0)
        assert bucket.wait_time(12, cost=2) == 0
        assert bucket.wait_time(12, cost=3) == 3

    def test_default_cost(self):
        bucket = TokenBucket(2, refill_every=7, now=0, initial=0)
        assert bucket.wait_time(3) == 4

    def test_guards(self):
        bucket = TokenBucket(2)
        with pytest.raises(LimitError, match="cost must be at least 1"):
            bucket.wait_time(0, cost=0)
        with pytest.raises(LimitError, match="exceeds capacity"):
            bucket.wait_time(0, cost=3)

    def test_time_to_full(self):
        bucket = TokenBucket(5, refill_amount=2, refill_every=3, now=0, initial=0)
        assert bucket.time_to_full(0) == 9
        assert bucket.time_to_full(4) == 5
        assert bucket.time_to_full(9) == 0
