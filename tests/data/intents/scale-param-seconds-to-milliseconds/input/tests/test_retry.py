import pytest

from retry import retry


class Flaky:
    def __init__(self, failures):
        self.failures = failures

    def __call__(self):
        if self.failures:
            self.failures -= 1
            raise OSError("not yet")
        return "done"


def test_retry_returns_once_the_call_succeeds():
    assert retry(Flaky(2), delay=0) == "done"


def test_retry_gives_up_after_its_attempts():
    with pytest.raises(OSError):
        retry(Flaky(5), 2, 0.01)
