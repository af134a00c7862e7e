SEPARATOR = "/"


def show(text):
    return SEPARATOR + text
