from geo import area


class TestShapes:
    def test_area(self):
        assert area(3, 2) == 6

    def test_square(self):
        assert area(2, 2) == 4


def test_area_zero():
    assert area(0, 5) == 0
