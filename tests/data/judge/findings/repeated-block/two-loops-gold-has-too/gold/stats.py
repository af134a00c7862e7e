def spread(values):
    mean = 0.0
    for value in values:
        mean += value / len(values)
    square = 0.0
    for value in values:
        square += (value - mean) ** 2
    return square / len(values)
