def gap(first, second):
    total = (first  # the first one
             - second)
    return total
