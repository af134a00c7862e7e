from pkg import get, get_many
from pkg.lookup import get_or_zero


def test_get():
    assert get({"a": {"b": 1}}, "a.b") == 1
    assert get({}, "a", default=5) == 5


def test_get_many():
    assert get_many({"a": 1}, ["a", "b"], default=0) == [1, 0]
    assert get_or_zero({}, "x") == 0


def test_other_keyword():
    assert {"default": 1}.get("default") == 1
    assert dict(default=2)["default"] == 2
