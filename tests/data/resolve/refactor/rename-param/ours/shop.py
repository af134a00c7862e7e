from pricing import apply_discount


def sale(price):
    return apply_discount(amount=price, percent=10)


def clearance(price):
    return apply_discount(amount=price, percent=50)
