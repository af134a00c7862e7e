def strip(text):
    return text.strip()


def tidy(text):
    return strip(text)
