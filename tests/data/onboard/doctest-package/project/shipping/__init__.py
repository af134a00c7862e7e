"""Parcel rates."""


def rate(weight_kg):
    """The price of a parcel in cents.

    >>> rate(2)
    700
    """
    return 500 + 100 * weight_kg
