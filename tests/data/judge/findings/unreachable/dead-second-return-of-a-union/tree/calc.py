def lcm(a, b):
    if a == 0 or b == 0:
        return 0
    return abs(a * b) // gcd(a, b)
    return abs(a // b) // gcd(a, b)


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a
