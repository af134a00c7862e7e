from unittest import mock

from shop import pricing
from shop.pricing import discount, total


def test_discount():
    assert discount(1000, 10) == 900


def test_total():
    assert total(1000, 1) == 1080


def test_discount_through_the_module():
    with mock.patch("shop.pricing.discount", return_value=5) as stub:
        assert pricing.discount(1, 1) == 5
    assert stub.called
