import main
import text


def test_page_name():
    assert main.page_name("A b", 3) == "a-b"
    assert text.slugify("x y") == "x-y"
