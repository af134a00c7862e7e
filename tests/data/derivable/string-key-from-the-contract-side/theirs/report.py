from geo import span


def show(xs):
    found = span(xs)
    low, high = found["low"], found["high"]
    return f"{low}-{high}"
