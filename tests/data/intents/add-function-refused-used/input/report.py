"""Reports of money amounts."""

from money import cents


def line(label, amount):
    return f"{label}: {cents(amount)}"
