def total(prices):
    amount = 0
    amount = sum(prices)
    return round(amount, 2)
