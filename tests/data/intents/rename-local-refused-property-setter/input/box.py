class Box:
    def __init__(self):
        self._width = 0

    @property
    def width(self):
        return self._width

    @width.setter
    def width(self, new):
        value = max(0, new)
        self._width = value
