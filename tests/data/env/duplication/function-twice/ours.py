def scale(x, factor=2):
    return x * factor
