from geo.shapes import Square, area
from geo.render import Circle


def test_area():
    assert area(Square(2)) == 4
    assert round(Circle(1).area(), 2) == 3.14
