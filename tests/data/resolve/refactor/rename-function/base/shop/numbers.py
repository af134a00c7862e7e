def check(value):
    if value is None:
        raise ValueError("value is missing")


def percentage(part, whole):
    check(part)
    return round_value(part * 100 / whole)


def round_value(value, digits=0):
    check(value)
    return round(value, digits)
