from unittest import mock

from shapes import Circle, Shape
from shapes.round import Ring


def test_circle():
    assert round(Circle(2).compute_area(), 3) == 12.566


def test_ring():
    assert round(Ring(2, 1).compute_area(), 3) == 9.425


def test_describe_uses_the_area():
    with mock.patch.object(Circle, "compute_area", return_value=2.0):
        assert Circle(1).describe() == "Circle of area 2.00"


def test_patched_by_path():
    with mock.patch("shapes.round.Ring.compute_area", return_value=1.0):
        assert Ring(2, 1).describe() == "Ring of area 1.00"
    assert hasattr(Shape, "compute_area")
