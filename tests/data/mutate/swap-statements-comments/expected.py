def compute(a, b):
    y = b + 1
    # a comment between

    x = a * 2   # double
    z = (x +
         y)
    w = z; v = w
    pass
    return z
