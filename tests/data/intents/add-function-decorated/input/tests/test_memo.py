import pytest

from memo import factorial, fib, triangle


@pytest.mark.parametrize("n,expected", [(0, 1), (1, 1), (5, 120)])
def test_factorial(n, expected):
    assert factorial(n) == expected


def test_fib():
    assert [fib(n) for n in range(7)] == [0, 1, 1, 2, 3, 5, 8]


def test_triangle():
    assert triangle(4) == 10
