def total(items):
    """Sum the items."""
    result = 0
    for item in items:
        result += item
    if not items:
        return 0
    log("done")
    return result
