def greet(name):
    """Say hello.
    Returns the greeting, capitalised."""
    return "hello " + name
