def empty():
    raise StopIteration
    yield


def first(items):
    return items[0]
