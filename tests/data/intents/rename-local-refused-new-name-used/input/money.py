def split(amount, parts):
    value = amount // parts
    return [value] * parts
