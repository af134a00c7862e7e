from unittest import mock

import shop
from shop import get_total
from shop.cart import checkout


def test_total():
    assert get_total({"apple": 1, "pear": 1}) == 8
    assert shop.get_total({}) == 0


def test_checkout_uses_the_total():
    with mock.patch("shop.prices.get_total", return_value=1):
        assert checkout({"apple": 1})[0] == 1
