"""Join words into lines."""


def join_words(words, sep, limit=None):
    """The words joined by ``sep``, the first ``limit`` of them when given.

    >>> join_words(["a", "b"], sep=", ")
    'a, b'
    >>> join_words(["a", "b"], "-")
    'a-b'
    """
    if limit is not None:
        words = words[:limit]
    return sep.join(words)


def headline(words):
    return join_words(words, limit=3, sep=", ").upper()


def listing(words):
    return join_words(
        words,
        limit=10,
        sep=", ",
    )


def table(rows):
    return "\n".join(join_words(row, sep=", ") for row in rows)
