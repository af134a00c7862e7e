"""Shapes."""

import dataclasses
import math

__all__ = [
    "Circle",
    "Square",
    "area",
]

PI = math.pi


@dataclasses.dataclass
class Square:
    side: float


# A circle by its radius.
@dataclasses.dataclass(frozen=True)
class Circle:
    radius: float

    def area(self):
        return PI * self.radius**2


def area(shape):
    return shape.area() if hasattr(shape, "area") else shape.side**2
