def chain(a, b, c):
    return c - (a - b)
