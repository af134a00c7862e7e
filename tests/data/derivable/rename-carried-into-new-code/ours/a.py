def total(items):
    return sum(items)


def mean(items):
    return total(items) / len(items)
