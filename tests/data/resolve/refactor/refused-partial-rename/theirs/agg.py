def first(items):
    total = 0
    for x in items:
        total += abs(x)
    return total


def second(items):
    total = 1
    for x in items:
        total *= x
    return total
