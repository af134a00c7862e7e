import shapes


def test_shapes_are_shapes():
    assert issubclass(shapes.Square, shapes.Shape)
