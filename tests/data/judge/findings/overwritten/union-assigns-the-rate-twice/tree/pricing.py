def rate(base, discount):
    value = base * (1 - discount)
    value = base - discount
    return round(value, 2)
