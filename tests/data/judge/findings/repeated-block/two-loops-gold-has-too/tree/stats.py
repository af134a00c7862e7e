def spread(values):
    centre = 0.0
    for v in values:
        centre += v / len(values)
    total = 0.0
    for v in values:
        total += (v - centre) ** 2
    return total / len(values)
