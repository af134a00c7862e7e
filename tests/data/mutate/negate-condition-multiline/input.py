def valid(a, b):
    if (a and
            b):
        return True
    return False
