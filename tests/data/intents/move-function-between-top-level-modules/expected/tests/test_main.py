from unittest import mock

import main
import text


def test_page_name():
    assert main.page_name("A b", 3) == "a-b"
    assert text.slugify("x y") == "x-y"


def test_slugify_stubbed():
    with mock.patch("text.slugify", return_value="stub"):
        assert text.slugify("x") == "stub"
