def sum_of(items):
    return sum(items)


def mean(items):
    return sum_of(items) / len(items)
