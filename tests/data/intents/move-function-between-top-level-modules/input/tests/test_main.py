import main
import utils


def test_page_name():
    assert main.page_name("A b", 3) == "a-b"
    assert utils.slugify("x y") == "x-y"
