def ratio(a, b):
    diff = a - b
    total = a + b  # commutative: left alone
    if b < a:
        return b / a
    return a // b, a % b, a << 2, a >> b
