from bounds import clamp, percent, unit


def test_clamp():
    assert clamp(5, 0, 3) == 3
    assert unit(2) == 1
