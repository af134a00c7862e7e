def check(values):
    for index, value in enumerate(values):
        if value < 0:
            return index
        if value is None:
            raise TypeError(f"values[{index}] is missing")
