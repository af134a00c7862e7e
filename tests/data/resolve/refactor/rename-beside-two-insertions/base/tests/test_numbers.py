from shop.numbers import percentage, round_value


def test_percentage():
    assert percentage(1, 4) == 25


def test_round_value():
    assert round_value(2.5) == 2
