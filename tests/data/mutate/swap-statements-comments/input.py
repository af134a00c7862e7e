def compute(a, b):
    x = a * 2   # double
    # a comment between

    y = b + 1
    z = (x +
         y)
    w = z; v = w
    pass
    return z
