def limit(n):
    # at most ten
    return min(n, 10)  # hard cap
