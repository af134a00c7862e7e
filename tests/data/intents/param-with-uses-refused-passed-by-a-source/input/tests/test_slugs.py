import pytest

from slugs import render, slugify


def test_slugify():
    assert slugify("A b") == "a-b"


def test_strict():
    with pytest.raises(ValueError):
        slugify("", strict=True)


def test_render():
    assert render("A b") == "/a-b"
