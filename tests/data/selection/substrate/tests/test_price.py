import pytest

from shop.price import discount, with_tax


def test_with_tax():
    assert with_tax(100) == 120


def test_discount():
    assert discount(100, 10) == 90


def test_discount_negative():
    with pytest.raises(ValueError):
        discount(100, -1)
