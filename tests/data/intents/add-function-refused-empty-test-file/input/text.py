"""Text helpers."""


def slugify(title):
    """Return a URL slug for ``title``."""
    return "-".join(title.lower().split())


def shout(text):
    return text.upper() + "!"
