def window(items, size=2, step=1):
    return [items[i:i + size] for i in range(0, len(items) - size + 1, step)]


def pairs(items):
    return window(items, step=2, size=2)
