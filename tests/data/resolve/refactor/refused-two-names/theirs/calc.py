def twice(amount):
    return amount * 2


def compute(amount):
    return twice(amount) + 1
