def apply_discount(value, percent):
    if value < 0:
        raise ValueError("amount must not be negative")
    discount = value * percent // 100
    return value - discount
