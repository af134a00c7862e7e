import itertools

from limits import throttle


def test_throttle_returns_the_last_result_within_the_wait():
    counter = itertools.count()
    throttled = throttle(lambda: next(counter), 60000)
    assert throttled() == 0
    assert throttled() == 0


def test_throttle_calls_again_once_the_wait_is_over():
    counter = itertools.count()
    wait = 0
    throttled = throttle(lambda: next(counter), wait)
    assert throttled() == 0
    assert throttled() == 1
