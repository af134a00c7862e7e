def add(a, b):
    """Add a and b.

    Both are numbers.
    """
    return a + b
