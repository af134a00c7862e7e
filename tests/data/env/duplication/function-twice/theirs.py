def scale(x):
    value = x * 2
    return value
