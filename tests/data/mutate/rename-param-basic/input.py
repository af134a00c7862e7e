@cache
def scale(value, factor=2, *args, unused=None, **options):
    """Scale a value."""
    result = value * factor  # scaled
    if options.get("round"):
        result = round(result)
    return result


def untouched(value):
    return value
