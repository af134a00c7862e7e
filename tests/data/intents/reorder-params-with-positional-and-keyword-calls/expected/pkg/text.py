"""Text helpers."""


def pad(text, chars=" ", width=10):
    """Pad ``text`` on the right.

    Args:
        text (str): The text.
        chars (str): What to pad with.
        width (int): The width to reach; longer
            text is left as it is.

    Returns:
        str: The padded text.
    """
    missing = max(width - len(text), 0)
    return text + (chars * missing)[:missing]


def title(text):
    """The text as a title line."""
    return pad(text.title(), "=", 20)
