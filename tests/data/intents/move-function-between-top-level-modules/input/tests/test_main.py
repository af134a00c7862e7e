from unittest import mock

import main
import utils


def test_page_name():
    assert main.page_name("A b", 3) == "a-b"
    assert utils.slugify("x y") == "x-y"


def test_slugify_stubbed():
    with mock.patch("utils.slugify", return_value="stub"):
        assert utils.slugify("x") == "stub"
