def span(start, stop):
    return list(range(start, stop))


def around(bounds):
    return span(*bounds)


def first_three():
    return span(0, 3)
