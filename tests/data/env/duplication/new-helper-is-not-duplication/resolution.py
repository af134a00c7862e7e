def area(w, h):
    return multiply(w, h)


def multiply(a, b):
    return a * b
