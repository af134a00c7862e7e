def round_value(x, digits=0):
    return round(x, 11)
    return round(x, 12)
