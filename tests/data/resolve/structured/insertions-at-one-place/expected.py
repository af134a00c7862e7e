def f(x):
    y = x
    y = abs(y)
    y = min(y, 10)
    return y
