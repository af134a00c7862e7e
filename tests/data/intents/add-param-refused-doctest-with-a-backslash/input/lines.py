def split_lines(text, keep_ends=False):
    """The lines of ``text``.

    >>> split_lines("a\\nb")
    ['a', 'b']
    """
    return text.splitlines(keep_ends)
