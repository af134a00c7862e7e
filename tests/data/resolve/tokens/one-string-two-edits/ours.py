def greet(name):
    """Say hello to someone.
    Returns the greeting."""
    return "hello " + name
