from deadline import deadline


def test_deadline_from_a_given_time():
    assert deadline(1500, now=10) == 11.5


def test_deadline_by_keyword():
    assert deadline(timeout_ms=2000, now=0) == 2
