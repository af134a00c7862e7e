from units import *


def test_kelvin():
    assert celsius_to_kelvin(0) == 273.15


def test_freezing():
    assert celsius_to_kelvin(-273.15) == 0


def test_boiling():
    assert celsius_to_kelvin(100) == 373.15
