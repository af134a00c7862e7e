from paths import Router


def test_resolve_drops_the_query_and_index():
    router = Router({"/a": 1, "/": 0})
    assert router.resolve("/a/index?x=1") == 1
    assert router.resolve("/b") == 0
