def add(a, c):
    """Add a to b.

    Both are numbers.
    """
    return a + b
