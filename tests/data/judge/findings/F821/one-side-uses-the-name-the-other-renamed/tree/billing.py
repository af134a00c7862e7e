def invoice(items, tax=0.2):
    amount = sum(item.price for item in items)
    amount += total * tax
    return round(amount, 2)
