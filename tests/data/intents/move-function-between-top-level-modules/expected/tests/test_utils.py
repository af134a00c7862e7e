import utils as u
import text


def test_slugify():
    assert text.slugify("Hello World") == "hello-world"


def test_clamp():
    assert u.clamp(5, 0, 3) == 3
