import itertools

import retrying
from timing import delay


def test_delay_calls_with_the_arguments():
    assert delay(lambda a, b: a + b, 0.005, 1, 2) == 3


def test_backoff_grows_by_its_factor():
    assert list(itertools.islice(retrying.backoff(1), 3)) == [1, 2, 4]


def test_later_hands_the_function_to_the_scheduler():
    assert retrying.later(lambda f: f(), lambda: "run") == "run"


class Scheduler:
    def delay(self, func, ticks):
        return func() * ticks


def test_queued_hands_the_ticks_to_the_scheduler():
    assert retrying.queued(Scheduler(), lambda: 2) == 10
