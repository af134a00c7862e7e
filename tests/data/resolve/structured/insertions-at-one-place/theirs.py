def f(x):
    y = x
    y = min(y, 10)
    return y
