from shapes.square import Square


def test_area():
    assert Square(3).area() == 9


def test_scaled():
    assert Square(1).scaled(3).side == 3
