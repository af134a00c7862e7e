LIMIT = 10


def allowed(count):
    return count <= LIMIT


def remaining(count):
    return LIMIT - count
