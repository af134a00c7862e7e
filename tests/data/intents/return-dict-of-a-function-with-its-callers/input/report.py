import spans


def underline(line, word):
    first, last = spans.span_of(line, word)
    return " " * first + "^" * (last - first)
