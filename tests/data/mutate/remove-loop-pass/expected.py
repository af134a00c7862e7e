def spin(n):
    if n:
        pass
    return n
