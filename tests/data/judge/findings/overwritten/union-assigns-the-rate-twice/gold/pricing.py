def rate(base, discount):
    value = base * (1 - discount)
    return round(value, 2)
