from stats import average, spread


def test_average():
    assert average([1, 2, 3]) == 2


def test_spread():
    assert spread([3, 9, 4]) == 6
