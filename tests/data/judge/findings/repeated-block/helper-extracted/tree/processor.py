def _checked(name, position, value):
    if not isinstance(value, (int, float)):
        raise TypeError(f"{name}[{position}] is not a number")
    return value


def validate_values(values, name="values"):
    return [_checked(name, position, value) for position, value in enumerate(values)]
