"""Summary statistics."""

import math
import os
from statistics import mean


def average(values):
    """Return the arithmetic mean."""
    return mean(values)


def geometric_mean(values):
    """Return the geometric mean of positive values."""
    return math.exp(sum(math.log(v) for v in values) / len(values))


def spread(values):
    """Return the largest minus the smallest value."""
    return max(values) - min(values)
