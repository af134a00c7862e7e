"""Prices of carts."""


def unit_price(sku):
    return {"apple": 3, "pear": 5}[sku]


def fetch_total(cart):
    """Sum of the cart's prices; see `fetch_total` in the README.

    >>> fetch_total({"apple": 2})
    6
    """
    return sum(unit_price(sku) * n for sku, n in cart.items())


def describe(cart):
    # fetch_total() ignores discounts.
    return f"{len(cart)} lines, {fetch_total(cart)} total"
