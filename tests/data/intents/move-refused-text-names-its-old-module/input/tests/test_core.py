from app.core import Point


def test_repr_names_the_module():
    assert repr(Point(1)) == "<app.core.Point x=1>"
