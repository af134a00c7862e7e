def pages(count, size):
    return -(-count // size)
