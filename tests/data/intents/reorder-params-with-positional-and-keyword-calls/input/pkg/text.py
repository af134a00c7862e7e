"""Text helpers."""


def pad(text, width=10, chars=" "):
    """Pad ``text`` on the right.

    Args:
        text (str): The text.
        width (int): The width to reach; longer
            text is left as it is.
        chars (str): What to pad with.

    Returns:
        str: The padded text.
    """
    missing = max(width - len(text), 0)
    return text + (chars * missing)[:missing]


def title(text):
    """The text as a title line."""
    return pad(text.title(), 20, "=")
