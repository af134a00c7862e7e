import pytest

from slugs import slugify


def test_words_are_joined():
    assert slugify("Hello, World") == "hello-world"


def test_separator():
    assert slugify("a b", separator="_") == "a_b"


def test_strict_refuses_empty_titles():
    with pytest.raises(ValueError):
        slugify("!!", strict=True)
