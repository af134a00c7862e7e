"""Turn titles into URL slugs."""

import re

SEPARATOR = "-"


def slugify(title, separator=SEPARATOR, strict=False):
    """Make a slug of a title.

    Args:
        title: The title.
        separator: What joins the words.
        strict: Refuse a title without words instead of
            returning an empty slug.

    Returns:
        The slug.
    """
    words = re.findall(r"\w+", title.lower())
    if strict and not words:
        raise ValueError("no words in %r" % title)
    joiner = separator if not strict else SEPARATOR
    return joiner.join(words)
