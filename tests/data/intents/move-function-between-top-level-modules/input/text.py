"""Text helpers."""

from utils import slugify


def shout(text):
    return text.upper() + "!"


def anchor(title):
    """The id of the heading ``title`` in a page."""
    return "heading-" + slugify(title)


def numbered(title, n):
    return f"{slugify(title)}-{n}"
