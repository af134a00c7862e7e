def money(value, places=2, sign="$"):
    return f"{sign}{value:.{places}f}"


def cents(value, *options):
    return money(value / 100, *options)


def whole(value):
    return money(value, 0)
