def apply_discount(amount, percent):
    if amount < 0:
        raise ValueError("amount must not be negative")
    discount = amount * percent // 100
    return amount - discount
