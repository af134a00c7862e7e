from text import slugify


def test_slugify():
    assert slugify("Hello World") == "hello-world"


def test_slugify_spaces():
    assert slugify("  a   b ") == "a-b"
