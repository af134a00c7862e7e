from deadline import deadline


def test_deadline_from_a_given_time():
    assert deadline(1.5, now=10) == 11.5


def test_deadline_by_keyword():
    assert deadline(timeout_seconds=2, now=0) == 2
