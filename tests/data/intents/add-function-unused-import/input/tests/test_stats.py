import math

from stats import average, geometric_mean, spread


def test_average():
    assert average([1, 2, 3]) == 2


def test_geometric_mean():
    assert math.isclose(geometric_mean([1, 4]), 2)


def test_spread():
    assert spread([3, 9, 4]) == 6
