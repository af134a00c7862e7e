def area(w, h):
    w = w - 1
    h = h * 3
    return w * h
