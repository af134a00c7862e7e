"""Text helpers."""

from utils import _SEPARATORS


def shout(text):
    return text.upper() + "!"


def slugify(title):
    """Lower-case ``title`` with dashes between its words."""
    return _SEPARATORS.sub("-", title.strip()).lower()
