def check(values):
    for position, value in enumerate(values):
        if value < 0:
            return position
