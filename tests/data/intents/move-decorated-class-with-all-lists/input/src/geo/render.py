"""Rendering shapes as text."""

from .shapes import Square

__all__ = ["describe", "outline"]


def outline(square):
    return "#" * int(Square(square.side).side)


def describe(shape):
    from .shapes import Circle

    if isinstance(shape, Circle):
        return f"circle {shape.radius}"
    return "square"
