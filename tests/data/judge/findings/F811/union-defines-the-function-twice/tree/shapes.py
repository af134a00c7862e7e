def scale(point, factor=2):
    """Scale a point away from the origin."""
    x, y = point
    return (x * factor, y * factor)


def scale(point, factor=3):
    """Scale a point away from the origin."""
    x, y = point
    return (x * factor, y * factor)


def area(width, height):
    return width * height
