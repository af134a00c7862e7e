def area(w, h):
    return w * h


def square(s):
    return area(s, s)
