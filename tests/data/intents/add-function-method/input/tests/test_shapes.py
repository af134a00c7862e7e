import math

import pytest

from shapes import Circle


@pytest.fixture
def unit():
    return Circle(1)


def test_area():
    assert Circle(1).area() == pytest.approx(math.pi)


def test_scaled(unit):
    assert unit.scaled(3).radius == 3


def test_diameter():
    assert Circle(2).diameter() == 4
