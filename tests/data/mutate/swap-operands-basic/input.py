def ratio(a, b):
    diff = a - b
    total = a + b  # commutative: left alone
    if a < b:
        return b / a
    return a // b, a % b, a << 2, a >> b
