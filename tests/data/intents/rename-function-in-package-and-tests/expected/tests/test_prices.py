from unittest import mock

import shop
from shop import fetch_total
from shop.cart import checkout


def test_total():
    assert fetch_total({"apple": 1, "pear": 1}) == 8
    assert shop.fetch_total({}) == 0


def test_checkout_uses_the_total():
    with mock.patch("shop.prices.fetch_total", return_value=1):
        assert checkout({"apple": 1})[0] == 1
