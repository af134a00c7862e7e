def scale(x, factor=2):
    value = x * factor
    return value
