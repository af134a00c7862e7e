def f(a, b, c):
    if (a + b) < c:
        return (a) ** -b
    x = -a ** 2 - (b)
    y = not a < b
    return [x for x in a if x > (b - 1)] + f(k=a - b)
