def total(price, qty, tax):
    return round(price) * qty - tax
