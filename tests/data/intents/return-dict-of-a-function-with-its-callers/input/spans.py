"""Where a word sits in a line."""

from typing import Tuple


def span_of(line, word) -> Tuple[int, int]:
    """Find ``word`` in ``line``.

    Returns:
        tuple: the first offset of the word and the offset just past it.
    """
    start = line.find(word)
    if start < 0:
        raise ValueError(f"{word!r} is not in {line!r}")
    end = start + len(word)
    return start, end


def width(line, word):
    start, end = span_of(line, word)
    return end - start


def starts(line, word):
    return span_of(line, word)[0]


def ends_before(line, word, limit):
    found, _ = span_of(line, word)  # only the start matters
    return found < limit
