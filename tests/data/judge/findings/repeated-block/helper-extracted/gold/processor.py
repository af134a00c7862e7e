def validate_values(values, name="values"):
    cleaned = []
    for position, value in enumerate(values):
        if not isinstance(value, (int, float)):
            raise TypeError(f"{name}[{position}] is not a number")
        cleaned.append(value)
    return cleaned
