def area(w, h, unit):
    return w * h * unit


def square(s):
    return area(s, s, SCALE)
