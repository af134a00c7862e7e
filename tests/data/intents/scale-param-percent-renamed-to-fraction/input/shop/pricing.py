"""Prices after discounts."""


def apply_discount(price, discount_pct):
    """Return ``price`` less its discount.

    :param discount_pct: the discount, in percent.
    """
    if discount_pct < 0 or discount_pct > 100:
        raise ValueError("discount out of range")
    return price * (100 - discount_pct) / 100


def sale_price(price):
    return apply_discount(price, discount_pct=20)
