"""Plane shapes."""
from .base import Shape
from .circle import Circle, unit_circle
from .square import Square

__all__ = [
    "Circle",
    "Shape",
    "Square",
    "unit_circle",
]
