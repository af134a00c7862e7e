from geo import span


def show(xs):
    low, high = span(xs)
    return f"{low}-{high}"
