def strip(text):
    return text.strip()
