from geo.shapes import Circle, Square, area


def test_area():
    assert area(Square(2)) == 4
    assert round(Circle(1).area(), 2) == 3.14
