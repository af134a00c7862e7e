from registry import renderer


def test_lookup_by_name():
    assert renderer("plain")(" x ") == "x"
