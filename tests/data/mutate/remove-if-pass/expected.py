def outer(items):
    def inner(item):
        pass
    for item in items:
        inner(item)
