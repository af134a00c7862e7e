def pick(items, limit):
    if len(items) > limit:
        return items[:limit]
    elif not items:
        return items
    while limit and items:
        limit -= 1
    while True:
        break
    return items if limit else []
