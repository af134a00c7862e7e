def f(x):
    y = x
    y = abs(y)
    return y
