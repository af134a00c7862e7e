import pytest

from retrying import retry


def flaky(failures):
    calls = []

    def func():
        calls.append(1)
        if len(calls) <= failures:
            raise OSError("not yet")
        return len(calls)

    return func


def test_retry_returns_once_the_call_succeeds():
    assert retry(attempts=3, delay=1)(flaky(2))() == 3


def test_retry_gives_up_after_its_attempts():
    with pytest.raises(OSError):
        retry(3, 0)(flaky(5))()


def test_retry_refuses_a_negative_delay():
    with pytest.raises(ValueError):
        retry(delay=-1000)
