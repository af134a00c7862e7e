def gap(first, second):
    total = (second  # the first one
             - first)
    return total
