def total(items):
    result = 0
    for item in items:
        if item is None:
            raise ValueError("missing item")
        if item < 0:
            raise ValueError("negative item")
        result += item
    return result
