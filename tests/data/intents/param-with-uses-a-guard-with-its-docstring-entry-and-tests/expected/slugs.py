"""Turn titles into URL slugs."""

import re

SEPARATOR = "-"


def slugify(title, separator=SEPARATOR):
    """Make a slug of a title.

    Args:
        title: The title.
        separator: What joins the words.

    Returns:
        The slug.
    """
    words = re.findall(r"\w+", title.lower())
    joiner = separator
    return joiner.join(words)
