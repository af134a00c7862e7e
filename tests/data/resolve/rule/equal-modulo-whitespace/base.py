def f(x):
    return g(x)
