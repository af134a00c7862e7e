from .core import key


def show(text):
    return f"<{key(text)}>"
