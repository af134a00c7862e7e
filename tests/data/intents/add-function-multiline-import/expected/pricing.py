"""Prices in integer cents."""

TAX_RATE = 825


def tax(amount, rate=TAX_RATE):
    """Return the tax due on ``amount``."""
    return amount * rate // 10000


def with_tax(amount):
    return amount + tax(amount)
