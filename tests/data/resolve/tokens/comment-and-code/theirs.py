def limit(n):
    # at most ten
    return min(n, 20)  # hard cap
