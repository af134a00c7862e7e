class Shape:
    def __init__(self, size):
        self.size = size

    def scale(self, factor, origin):
        return Shape(self.size * factor + origin)
