def spread(x, y, z):
    return z - (x + y)
