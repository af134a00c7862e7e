from pricing import apply_discount


def sale(price):
    return apply_discount(value=price, percent=10)
