"""Spans of a line of text."""


def clamp_span(start, end, length):
    """Clamp the span ``start:end`` to a line of ``length`` characters."""
    return max(0, start), min(end, length)


def window(text, start, end):
    """The text between ``start`` and ``end``, clamped to the text."""
    lo, hi = clamp_span(start, end, len(text))
    return text[lo:hi]
