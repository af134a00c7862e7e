def sign(x):
    if x < 0:
        result = -1
    else:
        result = 1
    return result
