from cache import Cache


def test_put():
    cache = Cache(limit=2)
    assert cache.put("a", val=1) == 1
    assert cache.put("a", val=2, replace=False) == 1
    cache.put_all([("b", 3)])
    assert cache.entries == {"a": 1, "b": 3}
