"""Tiny number helpers."""


def describe(n):
    """Describe a number."""
    if n < 0:
        return "negative"
    elif n == 0:
        return "zero"
    else:
        return "positive"
