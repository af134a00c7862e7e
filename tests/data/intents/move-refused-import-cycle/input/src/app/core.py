SEPARATOR = "-"


def normalize(text):
    return text.strip().lower().replace(" ", SEPARATOR)


def key(text):
    return normalize(text)[:8]
