def f(a, b):
    return a - b * 2
