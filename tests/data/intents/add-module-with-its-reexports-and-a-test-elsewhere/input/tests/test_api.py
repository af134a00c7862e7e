import shapes


def test_every_shape_has_an_area():
    assert shapes.Circle(1).area() > shapes.Square(1).area()


def test_shapes_are_shapes():
    assert issubclass(shapes.Square, shapes.Shape)
