import string

SEPARATOR = "-"


def normalize(text):
    return text.strip(string.whitespace).lower().replace(" ", SEPARATOR)


def key(text):
    return text[:8]
