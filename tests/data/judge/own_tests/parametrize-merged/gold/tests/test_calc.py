import pytest

from calc import add, div, mul


def test_add():
    assert add(2, 3) == 5
    assert add(-1, 1) == 0


@pytest.mark.parametrize("a, b, product", [(2, 3, 6), (0, 5, 0)])
def test_mul(a, b, product):
    assert mul(a, b) == product


def test_div():
    assert div(6, 3) == 2
    with pytest.raises(ZeroDivisionError):
        div(1, 0)
