def limit(n):
    # at most twenty, see the issue tracker
    return min(n, 10)  # soft cap
