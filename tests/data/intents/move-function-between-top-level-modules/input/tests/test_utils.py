import utils as u


def test_slugify():
    assert u.slugify("Hello World") == "hello-world"


def test_clamp():
    assert u.clamp(5, 0, 3) == 3
