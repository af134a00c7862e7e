"""Rates and their lookups."""

from decimal import Decimal

from .pricing import discount

RATES = {"std": Decimal("0.08")}


def rate(name):
    return RATES[name]


def bulk_rate(name, quantity):
    """The rate ``name`` less the discount for ``quantity`` units."""
    return discount(RATES[name], quantity)
