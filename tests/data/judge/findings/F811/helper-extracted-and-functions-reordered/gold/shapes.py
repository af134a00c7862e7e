def scale(point, factor=2):
    x, y = point
    return (x * factor, y * factor)


def area(width, height):
    return width * height
