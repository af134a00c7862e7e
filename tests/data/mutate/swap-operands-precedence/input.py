def chain(a, b, c):
    return a - b - c
