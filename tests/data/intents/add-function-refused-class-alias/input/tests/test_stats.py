from stats import Stats


def test_calc_min():
    assert Stats([2, 5])._calc_min() == 2


def test_minimum():
    assert Stats([3, 1, 2]).minimum == 1


def test_total():
    assert Stats([3, 1, 2]).total() == 6
