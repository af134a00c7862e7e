import pkg


def row(name, value):
    return pkg.pad(name, 12) + pad_value(value)


def pad_value(value):
    # pad(value) would pad with spaces
    return pkg.text.pad(str(value), chars=".", width=6)


def header(names):
    return "".join(pkg.pad(n, len(n) + 2, "-") for n in names)
