"""Money amounts."""


def cents(amount):
    """Return ``amount`` in whole cents."""
    return round(amount * 100)


def euros(amount):
    return amount / 100
