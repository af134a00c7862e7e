def apply_discount(value, percent):
    discount = value * percent // 100
    return value - discount
