def helper(amount):
    return amount * 2


def compute(value):
    return helper(value) + 1
