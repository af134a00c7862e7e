def invoice(items, tax=0.2):
    subtotal = sum(item.price for item in items)
    subtotal += subtotal * tax
    return round(subtotal, 2)
