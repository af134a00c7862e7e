"""Prices in integer cents."""

TAX_RATE = 825


def tax(amount, rate=TAX_RATE):
    """Return the tax due on ``amount``."""
    return amount * rate // 10000


def split_evenly(amount, parts):
    """Split ``amount`` into ``parts`` shares, differing by at most one cent."""
    base, extra = divmod(amount, parts)
    return [base + 1 if i < extra else base for i in range(parts)]


def with_tax(amount):
    return amount + tax(amount)
