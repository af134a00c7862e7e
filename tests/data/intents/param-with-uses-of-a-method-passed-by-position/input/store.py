class Store:
    def __init__(self, source):
        self.source = source
        self._cache = {}

    def fetch(self, key, refresh=False):
        if key in self._cache and not refresh:
            return self._cache[key]
        value = self.source[key]
        self._cache[key] = value
        return value
