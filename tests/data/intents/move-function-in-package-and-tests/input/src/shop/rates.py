"""Rates and their lookups."""

from decimal import Decimal

RATES = {"std": Decimal("0.08")}


def rate(name):
    return RATES[name]
