def area(w, h):
    return w * h
