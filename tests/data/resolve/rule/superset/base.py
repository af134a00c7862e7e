def f(x):
    y = x
    return y
