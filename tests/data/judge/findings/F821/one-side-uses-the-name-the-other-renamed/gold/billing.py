def invoice(items, tax=0.2):
    amount = sum(item.price for item in items)
    amount += amount * tax
    return round(amount, 2)
