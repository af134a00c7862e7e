lines = ["default"]


def first_line(text):
    lines = text.splitlines()
    return lines[0] if lines else None
