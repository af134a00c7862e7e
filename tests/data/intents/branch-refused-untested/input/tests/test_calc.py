from calc import describe


def test_negative():
    assert describe(-1) == "negative"


def test_zero():
    assert describe(0) == "zero"


def test_positive():
    assert describe(2) == "positive"
