def greet(name):
    """Say hello to someone.
    Returns the greeting, capitalised."""
    return "hello " + name
