import math

from shapes.circle import Circle, unit_circle


def test_area():
    assert unit_circle().area() == math.pi


def test_scaled():
    assert Circle(2).scaled(2).radius == 4
