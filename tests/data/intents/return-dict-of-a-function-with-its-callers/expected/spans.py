"""Where a word sits in a line."""


def span_of(line, word) -> dict:
    """Find ``word`` in ``line``.

    Returns:
        dict: the first offset of the word and the offset just past it.
    """
    start = line.find(word)
    if start < 0:
        raise ValueError(f"{word!r} is not in {line!r}")
    end = start + len(word)
    return {"start": start, "end": end}


def width(line, word):
    result = span_of(line, word)
    start, end = result["start"], result["end"]
    return end - start


def starts(line, word):
    return span_of(line, word)["start"]


def ends_before(line, word, limit):
    found = span_of(line, word)["start"]  # only the start matters
    return found < limit
