def span(xs):
    return min(xs), max(xs)
