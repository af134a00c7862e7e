def first(items):
    """The first item."""
    return items[0]


def empty():
    raise StopIteration
    yield
