def span(xs):
    return {'low': min(xs), 'high': max(xs)}


def width(xs):
    found = span(xs)
    low, high = found["low"], found["high"]
    return high - low
