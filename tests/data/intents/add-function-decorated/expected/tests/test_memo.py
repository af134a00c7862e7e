from memo import fib, triangle


def test_fib():
    assert [fib(n) for n in range(7)] == [0, 1, 1, 2, 3, 5, 8]


def test_triangle():
    assert triangle(4) == 10
