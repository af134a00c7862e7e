def scale(value, factor):
    return value * factor


def double(value):
    return scale(value, 2)
