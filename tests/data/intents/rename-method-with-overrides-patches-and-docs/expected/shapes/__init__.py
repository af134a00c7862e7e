from .base import Shape
from .round import Circle

__all__ = ["Circle", "Shape"]
