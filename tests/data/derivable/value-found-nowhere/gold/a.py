def strip(text, suffix):
    return text.strip() + suffix


def shout(text):
    return strip(text, "!")


def tidy(text):
    return strip(text, "~")
