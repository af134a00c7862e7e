def price(amount, rate):
    tax = amount * rate
    return amount + tax
