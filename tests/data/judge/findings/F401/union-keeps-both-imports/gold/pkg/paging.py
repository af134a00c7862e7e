from math import ceil


def pages(count, size):
    return ceil(count / size)
