from report import table


def test_table():
    assert table([["a", "b"]], format_row=",".join) == "a,b"
