"""Text helpers."""

from utils import _SEPARATORS


def shout(text):
    return text.upper() + "!"


def anchor(title):
    """The id of the heading ``title`` in a page."""
    return "heading-" + slugify(title)


def numbered(title, n):
    return f"{slugify(title)}-{n}"


def slugify(title):
    """Lower-case ``title`` with dashes between its words."""
    return _SEPARATORS.sub("-", title.strip()).lower()
