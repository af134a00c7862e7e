def sum_of(items):
    return sum(items)
