"""Summary statistics."""

import os
from statistics import mean


def average(values):
    """Return the arithmetic mean."""
    return mean(values)


def spread(values):
    """Return the largest minus the smallest value."""
    return max(values) - min(values)
