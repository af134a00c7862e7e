def spread(x, y, z):
    return (x + y) - z
