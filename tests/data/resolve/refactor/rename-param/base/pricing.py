def apply_discount(amount, percent):
    discount = amount * percent // 100
    return amount - discount
