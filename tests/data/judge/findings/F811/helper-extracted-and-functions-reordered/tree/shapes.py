def area(width, height):
    return width * height


def _times(value, factor):
    return value * factor


def scale(point, factor=2):
    x, y = point
    return (_times(x, factor), _times(y, factor))
