def total(price, qty, tax):
    return price * qty + tax
