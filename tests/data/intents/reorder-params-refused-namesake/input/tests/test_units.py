from shapes import Shape
from units import double, scale


def test_scale():
    assert scale(2, 3) == 6
    assert double(4) == 8
    assert Shape(2).scale(3, 1).size == 7
