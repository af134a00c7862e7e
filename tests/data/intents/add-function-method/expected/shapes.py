"""Shapes with their measures."""

import math


class Circle:
    """A circle of a given radius."""

    def __init__(self, radius):
        self.radius = radius

    def area(self):
        """Return the area."""
        return math.pi * self.radius ** 2

    def diameter(self):
        return 2 * self.radius
