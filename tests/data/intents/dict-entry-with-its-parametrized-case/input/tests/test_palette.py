import pytest

from palette import paint


@pytest.mark.parametrize(
    "color, code",
    [
        ("red", 31),
        ("green", 32),
        ("yellow", 33),
        ("blue", 34),
    ],
)
def test_code(color, code):
    assert paint("x", color) == "\x1b[%dmx\x1b[0m" % code


def test_unknown_colour():
    with pytest.raises(KeyError):
        paint("x", "mauve")
