def find(items, key):
    if not items:
        return
    for item in items:
        if item == key:
            return True
    if key is None:
        return None
    return None  # position
