from app.core import normalize


def heading(title):
    return normalize(title).title()
