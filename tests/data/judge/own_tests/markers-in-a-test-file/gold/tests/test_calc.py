import pytest

from calc import add, div, mul


def test_add():
    assert add(2, 3) == 5
    assert add(-1, 1) == 0


def test_mul(two):
    assert mul(two, 3) == 6


def test_div():
    assert div(6, 3) == 2
    with pytest.raises(ZeroDivisionError):
        div(1, 0)
