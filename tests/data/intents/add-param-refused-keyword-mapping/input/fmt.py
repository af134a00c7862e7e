def pad(text, width=8):
    return text.ljust(width)


def cell(text, **options):
    return pad(text, **options)
