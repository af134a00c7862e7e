from stats import describe, median


def test_describe():
    assert describe([1, 3]) == {"mean": 2.0, "spread": 1.0}


def test_median():
    assert median([3, 1, 2]) == 2
