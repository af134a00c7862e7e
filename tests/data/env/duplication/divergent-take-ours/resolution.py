def lcm(a, b):
    if a == 0:
        return 0
    return abs(a * b) // gcd(a, b)
