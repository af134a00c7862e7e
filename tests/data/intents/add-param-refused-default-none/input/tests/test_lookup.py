from lookup import lookup, name_of


def test_find():
    assert lookup({"a": 1}, "a") == 1
    assert name_of({}) is None
