def check(value):
    if value is None:
        raise ValueError("value is missing")


def percentage(part, whole):
    check(part)
    return round_amount(part * 100 / whole)


def round_amount(value, digits=0):
    check(value)
    return round(value, digits)


def ratio(part, whole):
    return round_amount(part / whole, digits=2)


def double(value):
    return value * 2
