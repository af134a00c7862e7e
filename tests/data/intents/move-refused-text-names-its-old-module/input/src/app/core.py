class Point:
    def __init__(self, x):
        self.x = x

    def __repr__(self):
        return f"<{__name__}.Point x={self.x}>"


def origin():
    return Point(0)
