def lcm(a, b):
<<<<<<< ours
    return abs(a * b) // gcd(a, b)
||||||| base
    return abs(a // b) // gcd(a, b)
=======
    return abs(a / b) // gcd(a, b)
>>>>>>> theirs


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a
