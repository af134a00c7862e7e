"""Prices in cents."""

import math
from decimal import Decimal

from .rates import discount

TAX_RATE = 8


def total(amount, quantity):
    cut = discount(amount, quantity)
    return math.ceil(cut * (100 + TAX_RATE) / 100)


def as_decimal(cents):
    return Decimal(cents) / 100
