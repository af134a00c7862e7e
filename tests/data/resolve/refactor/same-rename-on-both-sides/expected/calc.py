def double(amount):
    return amount * 2


def compute(value):
    return double(value) + 1
