import pkg_a


def test_x():
    assert pkg_a.X == 1
