from store import load, lookup


def test_load():
    assert load("[1]") == [1]


def test_load_invalid():
    assert load("{", 0) == 0


def test_lookup():
    assert lookup([None, {"a": 1}], "a") == 1
    assert lookup([], "a", 2) == 2
