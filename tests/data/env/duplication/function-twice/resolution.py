def scale(x, factor=2):
    return x * factor


def scale(x):
    value = x * 2
    return value
