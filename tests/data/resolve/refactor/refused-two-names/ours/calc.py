def double(amount):
    return amount * 2


def compute(amount):
    return double(amount) + 1
