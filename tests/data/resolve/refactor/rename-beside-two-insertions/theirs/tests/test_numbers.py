from shop.numbers import percentage, round_amount


def test_percentage():
    assert percentage(1, 4) == 25


def test_round_amount():
    assert round_amount(2.5) == 2
