import pytest

from shop import pricing


def test_a_quarter_off():
    assert pricing.apply_discount(200, 0.25) == 150


def test_the_sale_takes_a_fifth():
    assert pricing.sale_price(50) == 40


def test_more_than_everything_is_refused():
    with pytest.raises(ValueError):
        pricing.apply_discount(10, discount_fraction=1.5)
