"""Plane shapes."""
from .base import Shape
from .square import Square

__all__ = [
    "Shape",
    "Square",
]
