"""Small helpers."""

import re

_SEPARATORS = re.compile(r"[\s_]+")


def clamp(value, low, high):
    return max(low, min(value, high))
