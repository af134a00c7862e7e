import pkg
from pkg.text import pad, title
from pkg.report import row, header


def test_pad():
    assert pad("ab", 4, "*") == "ab**"
    assert pad("ab") == "ab" + " " * 8
    assert pad("abc", width=2) == "abc"


def test_title():
    assert title("a b") == "A B" + "=" * 17


def test_row():
    assert row("x", 1) == "x" + " " * 11 + "1....."
    assert header(["a"]) == "a--"
