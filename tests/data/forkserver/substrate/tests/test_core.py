from pkg import core
from pkg.core import Child, double, later, shout, spin


def test_double():
    assert double(4) == 8


def test_greet():
    assert Child().greet() == "child"


def test_triple():
    assert Child.triple(2) == 6


def test_name():
    assert Child().name == "child"


def test_spin():
    assert spin(3) == 3


def test_shout():
    assert shout("a") == "A"
    assert core.shout.__doc__ == "Upper-cases text."


def test_later():
    assert later(1) == 2
