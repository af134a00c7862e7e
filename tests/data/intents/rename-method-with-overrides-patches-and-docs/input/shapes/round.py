import math

from .base import Shape


class Circle(Shape):
    def __init__(self, radius):
        self.radius = radius

    def compute_area(self):
        """The disc's area.

        >>> Circle(1).compute_area()
        3.141592653589793
        """
        return math.pi * self.radius**2


class Ring(Circle):
    def __init__(self, radius, hole):
        super().__init__(radius)
        self.hole = hole

    def compute_area(self):
        # The area of the compute step is the disc minus the hole.
        return super().compute_area() - math.pi * self.hole**2
