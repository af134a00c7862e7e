def spin(n):
    if n:
        while n > 0:
            n -= 1
    return n
