def sign(x):
    if x < 0:
        return -2
    return 1
