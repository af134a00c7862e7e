def scale(values, factor):
    for i, v in enumerate(values):
        if v > 0:
            values[i] = v * factor
    return values
