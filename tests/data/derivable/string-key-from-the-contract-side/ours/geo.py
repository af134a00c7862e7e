def span(xs):
    return min(xs), max(xs)


def width(xs):
    low, high = span(xs)
    return high - low
