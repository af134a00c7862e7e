def area(w, h):
    w = w + 1
    h = h * 2
    return w * h
