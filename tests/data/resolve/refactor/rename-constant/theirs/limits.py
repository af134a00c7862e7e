LIMIT = 10


def allowed(count):
    return 0 <= count <= LIMIT


def remaining(count):
    return LIMIT - count
