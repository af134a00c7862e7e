from store import Store


class TestStore:
    def test_fetch(self):
        assert Store({"a": 1}).fetch("a") == 1

    def test_cached(self):
        source = {"a": 1}
        store = Store(source)
        store.fetch("a")
        source["a"] = 2
        assert store.fetch("a") == 1

    def test_refresh_reads_again(self):
        source = {"a": 1}
        store = Store(source)
        store.fetch("a")
        source["a"] = 2
        assert store.fetch("a", True) == 2
