def greet(name):
    """Say hello.
    Returns the greeting."""
    return "hello " + name
