"""Prices in cents."""

import math
from decimal import Decimal

TAX_RATE = 8


# Tiered discounts: the larger the order, the larger the cut.
def discount(amount, quantity):
    """Return ``amount`` less the discount for ``quantity`` units."""
    if quantity >= 10:
        return math.floor(amount * 0.9)
    return amount


def total(amount, quantity):
    cut = discount(amount, quantity)
    return math.ceil(cut * (100 + TAX_RATE) / 100)


def as_decimal(cents):
    return Decimal(cents) / 100
