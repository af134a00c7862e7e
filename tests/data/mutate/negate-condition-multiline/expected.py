def valid(a, b):
    if (not (a and
            b)):
        return True
    return False
