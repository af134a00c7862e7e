def add(a, b):
    """Add a to b.

    Both are numbers.
    """
    return a + b
