"""Rates and their lookups."""

import math
from decimal import Decimal

RATES = {"std": Decimal("0.08")}


def rate(name):
    return RATES[name]


def bulk_rate(name, quantity):
    """The rate ``name`` less the discount for ``quantity`` units."""
    return discount(RATES[name], quantity)


# Tiered discounts: the larger the order, the larger the cut.
def discount(amount, quantity):
    """Return ``amount`` less the discount for ``quantity`` units."""
    if quantity >= 10:
        return math.floor(amount * 0.9)
    return amount
