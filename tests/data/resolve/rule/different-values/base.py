def total(items):
    result = 0
    for item in items:
        result += item
    return result
