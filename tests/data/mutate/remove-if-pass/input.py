def outer(items):
    def inner(item):
        if item:
            print(item)  # only statement
    for item in items:
        inner(item)
