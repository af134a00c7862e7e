def greet(name):
    """Say hello.
    Returns the greeting."""
    return "Hello " + name.title()
