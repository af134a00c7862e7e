def add(a, c):
    """Add a and b.

    Both are numbers.
    """
    return a + b
