count = 0


def bump():
    global count
    count = count + 1
    return count
