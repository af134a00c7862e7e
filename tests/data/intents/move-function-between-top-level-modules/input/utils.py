"""Small helpers."""

import re

_SEPARATORS = re.compile(r"[\s_]+")


def clamp(value, low, high):
    return max(low, min(value, high))


def slugify(title):
    """Lower-case ``title`` with dashes between its words."""
    return _SEPARATORS.sub("-", title.strip()).lower()
