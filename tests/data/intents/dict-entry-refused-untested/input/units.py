def _metres(value):
    return value


FACTORS = {
    'm': _metres,
    'cm': lambda value: value / 100,
    'km': lambda value: value * 1000,
    'mm': lambda value: value / 1000,
}


def to_metres(value, unit):
    return FACTORS[unit](value)
