from slugs import slugify


def test_words_are_joined():
    assert slugify("Hello, World") == "hello-world"


def test_separator():
    assert slugify("a b", separator="_") == "a_b"
