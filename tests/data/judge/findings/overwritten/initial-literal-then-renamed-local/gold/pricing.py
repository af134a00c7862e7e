def total(prices):
    value = sum(prices)
    return round(value, 2)
