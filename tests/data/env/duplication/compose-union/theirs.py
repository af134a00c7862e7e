def round_value(x, digits=1):
    return round(x, 12)
