from store import Cache, load_items


def test_cache_keeps_the_loader():
    assert Cache(load_items).load_items is load_items
