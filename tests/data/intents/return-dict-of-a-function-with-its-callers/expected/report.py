import spans


def underline(line, word):
    result = spans.span_of(line, word)
    first, last = result["start"], result["end"]
    return " " * first + "^" * (last - first)
