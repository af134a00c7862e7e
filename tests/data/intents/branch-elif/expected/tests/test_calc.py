from calc import describe


def test_negative():
    assert describe(-1) == "negative"


def test_positive():
    assert describe(2) == "positive"
