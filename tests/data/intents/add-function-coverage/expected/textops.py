"""Text operations looked up by name."""

HANDLERS = {}


def handler(name):
    """Register a function as the handler of ``name``."""
    def register(func):
        HANDLERS[name] = func
        return func
    return register


@handler("lower")
def whisper(text):
    return text.lower()


def run(name, text):
    """Apply the handler of ``name`` to ``text``."""
    return HANDLERS[name](text)
