from functools import partial


def clamp(value, low, high):
    return max(low, min(value, high))


percent = partial(clamp, 0, 100)


def unit(value):
    return clamp(value, 0, 1)
