from units import to_metres


def test_metres():
    assert to_metres(3, 'm') == 3


def test_centimetres():
    assert to_metres(250, 'cm') == 2.5


def test_kilometres():
    assert to_metres(2, 'km') == 2000


def test_millimetres():
    assert to_metres(5, 'mm') == 0.005
