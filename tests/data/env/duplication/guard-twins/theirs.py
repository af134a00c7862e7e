def check(n):
    if n <= 0:
        raise ValueError("n")
    return n
