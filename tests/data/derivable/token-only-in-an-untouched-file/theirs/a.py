def area(w, h, unit):
    return w * h * unit
