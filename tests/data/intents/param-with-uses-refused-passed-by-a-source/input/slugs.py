def slugify(title, strict=False):
    words = title.lower().split()
    if strict and not words:
        raise ValueError(title)
    return "-".join(words)


def render(title):
    return "/" + slugify(title, strict=True)
