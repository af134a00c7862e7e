def helper(amount):
    return amount * 2


def compute(amount):
    return helper(amount) + 1
