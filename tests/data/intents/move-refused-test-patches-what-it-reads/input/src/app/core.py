import time


def stamp(text):
    return f"{time.time():.0f} {text}"


def key(text):
    return text[:8]
