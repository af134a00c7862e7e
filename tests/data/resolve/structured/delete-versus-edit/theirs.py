def f(x):
    x = x + 2
    return x
