from report import line


def test_line():
    assert line("total", 1.5) == "total: 150"
