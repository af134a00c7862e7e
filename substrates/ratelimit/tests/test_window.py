import pytest

from ratelimit import FixedWindow, LimitError, SlidingCounter, SlidingLog

ALL = [FixedWindow, SlidingLog, SlidingCounter]


@pytest.mark.parametrize("cls", ALL)
class TestCommonGuards:
    def test_settings(self, cls):
        with pytest.raises(LimitError, match="limit must be at least 1"):
            cls(0, 10)
        with pytest.raises(LimitError, match="window size must be at least 1"):
            cls(1, 0)
        window = cls(1, 1)
        assert window.limit == 1
        assert window.size == 1

    def test_cost(self, cls):
        window = cls(3, 10)
        with pytest.raises(LimitError, match="cost must be at least 1"):
            window.hit(0, cost=0)
        with pytest.raises(LimitError, match="cost 4 exceeds limit 3"):
            window.hit(0, cost=4)
        assert window.hit(0, cost=3) is True
        assert window.hit(0) is False


class TestFixedWindow:
    def test_window_start(self):
        window = FixedWindow(3, 10)
        assert window.window_start(0) == 0
        assert window.window_start(9) == 0
        assert window.window_start(10) == 10
        assert window.window_start(25) == 20

    def test_limit_within_window(self):
        window = FixedWindow(3, 10)
        assert window.hit(1) is True
        assert window.hit(5, cost=2) is True
        assert window.count == 3
        assert window.hit(9) is False
        assert window.count == 3
        assert window.remaining(9) == 0

    def test_exact_fill(self):
        window = FixedWindow(3, 10)
        assert window.hit(0, cost=2) is True
        assert window.hit(1) is True
        assert window.hit(2) is False

    def test_new_window_resets(self):
        window = FixedWindow(3, 10)
        window.hit(9, cost=3)
        assert window.hit(10) is True
        assert window.start == 10
        assert window.remaining(12) == 2
        assert window.remaining(35) == 3
        assert window.start == 30

    def test_first_window_counts_from_zero(self):
        window = FixedWindow(2, 10)
        assert window.hit(3) is True
        assert window.hit(4) is True
        assert window.hit(5) is False
        assert window.start == 0

    def test_remaining_fresh(self):
        assert FixedWindow(4, 5).remaining(3) == 4

    def test_reset_at(self):
        window = FixedWindow(3, 10)
        assert window.reset_at(9) == 10
        assert window.reset_at(10) == 20
        assert window.reset_at(12) == 20

    def test_backwards_within_window_allowed(self):
        window = FixedWindow(3, 10)
        window.hit(15)
        assert window.hit(12) is True
        assert window.count == 2

    def test_backwards_across_windows(self):
        window = FixedWindow(3, 10)
        window.hit(10)
        with pytest.raises(LimitError, match="time went backwards"):
            window.hit(9)


class TestSlidingLog:
    def test_expiry(self):
        log = SlidingLog(3, 10)
        assert log.hit(0) is True
        assert log.hit(2) is True
        assert log.hit(5) is True
        assert log.hit(9) is False
        assert log.used(9) == 3
        assert log.hit(10) is True
        assert log.events == [(2, 1), (5, 1), (10, 1)]
        assert log.used(11) == 3
        assert log.used(12) == 2

    def test_costs(self):
        log = SlidingLog(5, 4)
        assert log.hit(0, cost=3) is True
        assert log.hit(1, cost=2) is True
        assert log.hit(2, cost=1) is False
        assert log.used(3) == 5
        assert log.used(4) == 2
        assert log.hit(4, cost=3) is True

    def test_retry_after(self):
        log = SlidingLog(3, 10)
        for when in (2, 5, 10):
            log.hit(when)
        assert log.retry_after(10) == 2
        assert log.retry_after(10, cost=2) == 5
        assert log.retry_after(10, cost=3) == 10
        assert log.retry_after(11, cost=2) == 4

    def test_retry_after_weighted(self):
        log = SlidingLog(5, 10)
        log.hit(0, cost=2)
        log.hit(3, cost=2)
        # used 4, cost 3: excess 2 -> first event frees 2
        assert log.retry_after(4, cost=3) == 6
        # cost 4: excess 3 -> need both events
        assert log.retry_after(4, cost=4) == 9

    def test_retry_after_zero_when_allowed(self):
        log = SlidingLog(3, 10)
        log.hit(0)
        log.hit(1)
        assert log.retry_after(2) == 0
        assert log.retry_after(2, cost=2) == 8

    def test_retry_after_guard(self):
        with pytest.raises(LimitError, match="exceeds limit"):
            SlidingLog(2, 5).retry_after(0, cost=3)

    def test_backwards(self):
        log = SlidingLog(3, 10)
        log.used(10)
        assert log.used(10) == 0
        with pytest.raises(LimitError, match="time went backwards"):
            log.hit(9)


class TestSlidingCounter:
    def test_weighted_estimate(self):
        counter = SlidingCounter(10, 10)
        assert counter.hit(5, cost=6) is True
        assert counter.estimate(9) == 6
        # previous 6, 8/10 of it overlaps at t=12 -> 4.8 rounded up
        assert counter.estimate(12) == 5
        assert counter.previous == 6
        assert counter.current == 0
        assert counter.estimate(15) == 3
        assert counter.estimate(19) == 1

    def test_rounding_up_of_fraction(self):
        counter = SlidingCounter(10, 10)
        counter.hit(5, cost=7)
        # 7 * 3 / 10 = 2.1 -> 3
        assert counter.estimate(17) == 3
        assert counter.estimate(18) == 2
        assert counter.estimate(20) == 0

    def test_hit_uses_estimate(self):
        counter = SlidingCounter(10, 10)
        counter.hit(5, cost=6)
        assert counter.hit(12, cost=5) is True
        assert counter.hit(12) is False
        assert counter.current == 5
        assert counter.estimate(15) == 8

    def test_roll_twice(self):
        counter = SlidingCounter(10, 10)
        counter.hit(5, cost=6)
        counter.hit(12, cost=5)
        assert counter.estimate(20) == 5
        assert counter.previous == 5
        assert counter.start == 20

    def test_gap_clears_both(self):
        counter = SlidingCounter(10, 10)
        counter.hit(5, cost=6)
        assert counter.estimate(25) == 0
        assert counter.previous == 0
        assert counter.start == 20

    def test_gap_after_current(self):
        counter = SlidingCounter(10, 10)
        counter.hit(5, cost=6)
        counter.hit(12, cost=4)
        assert counter.estimate(35) == 0
        assert counter.current == 0

    def test_default_cost(self):
        counter = SlidingCounter(2, 10)
        assert counter.hit(0) is True
        assert counter.hit(1) is True
        assert counter.hit(2) is False
        assert counter.current == 2

    def test_same_window_keeps_counts(self):
        counter = SlidingCounter(10, 10)
        counter.hit(11, cost=3)
        counter.hit(14, cost=2)
        assert counter.current == 5
        assert counter.previous == 0
        assert counter.estimate(19) == 5

    def test_backwards(self):
        counter = SlidingCounter(5, 10)
        counter.estimate(45)
        assert counter.estimate(40) == 0
        with pytest.raises(LimitError, match="time went backwards"):
            counter.estimate(39)
