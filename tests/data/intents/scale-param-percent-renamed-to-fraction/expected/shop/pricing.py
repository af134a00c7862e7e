"""Prices after discounts."""


def apply_discount(price, discount_fraction):
    """Return ``price`` less its discount.

    :param discount_fraction: the discount, as a fraction.
    """
    if discount_fraction < 0 or discount_fraction > 1:
        raise ValueError("discount out of range")
    return price * (100 - discount_fraction * 100) / 100


def sale_price(price):
    return apply_discount(price, discount_fraction=0.2)
