def normalize(text):
    return " ".join(text.split()).lower()


def tokens(text):
    return text.split()
