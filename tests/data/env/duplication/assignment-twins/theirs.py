def price(amount, rate):
    tax = round(amount * rate, 2)
    return amount + tax
