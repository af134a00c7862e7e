"""Discount tiers, markups and tax, all in integer cents.

Rates are integers: discount and margin in whole percent, tax in basis
points (825 means 8.25%).  Every division goes through :func:`divide`
so the rounding mode is always explicit.
"""

ROUNDING_MODES = ("half_up", "half_even", "down", "up")

# (minimum quantity, discount percent), checked from the largest threshold.
DEFAULT_TIERS = ((100, 15), (50, 10), (10, 5))

DEFAULT_TAX_RATE = 825


class PricingError(ValueError):
    """Raised for invalid prices, rates or rounding modes."""


def divide(numerator, denominator, rounding="half_up"):
    """Divide two integers and round the quotient to an integer."""
    if rounding not in ROUNDING_MODES:
        raise PricingError(f"unknown rounding mode {rounding!r}")
    if denominator <= 0:
        raise PricingError("denominator must be positive")
    if numerator < 0:
        raise PricingError("numerator must not be negative")
    quotient, remainder = divmod(numerator, denominator)
    if remainder == 0:
        return quotient
    if rounding == "down":
        return quotient
    if rounding == "up":
        return quotient + 1
    twice = remainder * 2
    if twice > denominator:
        return quotient + 1
    if twice < denominator:
        return quotient
    if rounding == "half_up":
        return quotient + 1
    if quotient % 2 == 1:
        return quotient + 1
    return quotient


def discount_percent(qty, tiers=DEFAULT_TIERS):
    """Return the best discount percent that ``qty`` qualifies for."""
    if qty < 0:
        raise PricingError("quantity must not be negative")
    best = 0
    for min_qty, percent in tiers:
        if qty >= min_qty and percent > best:
            best = percent
    return best


def apply_discount(amount, percent, rounding="half_up"):
    """Return ``amount`` reduced by ``percent`` percent."""
    if amount < 0:
        raise PricingError("amount must not be negative")
    if percent < 0 or percent > 100:
        raise PricingError("discount percent must be between 0 and 100")
    discount = divide(amount * percent, 100, rounding=rounding)
    return amount - discount


def tax(amount, rate=DEFAULT_TAX_RATE, rounding="half_up"):
    """Return the tax due on ``amount`` at ``rate`` basis points."""
    if amount < 0:
        raise PricingError("amount must not be negative")
    if rate < 0:
        raise PricingError("tax rate must not be negative")
    return divide(amount * rate, 10000, rounding=rounding)


def markup_price(unit_cost, margin=25, step=5):
    """Return cost plus ``margin`` percent, rounded up to a multiple of ``step``."""
    if unit_cost < 0:
        raise PricingError("unit cost must not be negative")
    if margin < 0:
        raise PricingError("margin must not be negative")
    if step < 1:
        raise PricingError("step must be at least 1")
    price = divide(unit_cost * (100 + margin), 100, rounding="up")
    remainder = price % step
    if remainder:
        price += step - remainder
    return price


def line_total(unit_price, qty, rate=DEFAULT_TAX_RATE, tiers=DEFAULT_TIERS,
               rounding="half_up"):
    """Return subtotal, discount, tax and total for ``qty`` units."""
    if qty < 1:
        raise PricingError("quantity must be at least 1")
    if unit_price < 0:
        raise PricingError("unit price must not be negative")
    subtotal = unit_price * qty
    percent = discount_percent(qty, tiers=tiers)
    discounted = apply_discount(subtotal, percent, rounding=rounding)
    tax_due = tax(discounted, rate=rate, rounding=rounding)
    return {
        "subtotal": subtotal,
        "discount": subtotal - discounted,
        "tax": tax_due,
        "total": discounted + tax_due,
    }


def split_evenly(amount, parts):
    """Split ``amount`` cents into ``parts`` shares differing by at most 1."""
    if parts < 1:
        raise PricingError("parts must be at least 1")
    if amount < 0:
        raise PricingError("amount must not be negative")
    base, extra = divmod(amount, parts)
    shares = []
    for index in range(parts):
        if index < extra:
            shares.append(base + 1)
        else:
            shares.append(base)
    return shares
