def limit(n):
    # at most twenty, see the issue tracker
    return min(n, 20)  # soft cap
