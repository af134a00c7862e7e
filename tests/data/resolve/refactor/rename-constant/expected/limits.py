MAX_ITEMS = 10


def allowed(count):
    return 0 <= count <= MAX_ITEMS


def remaining(count):
    return MAX_ITEMS - count
