def scale(values, factor):
    for i, v in enumerate(values):
        if v > 0:
            values[i] = v * factor + 1
    return values
