import math

import pytest

from shapes import Circle


def test_area():
    assert Circle(1).area() == pytest.approx(math.pi)


def test_diameter():
    assert Circle(2).diameter() == 4
