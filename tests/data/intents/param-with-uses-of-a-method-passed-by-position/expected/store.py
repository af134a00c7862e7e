class Store:
    def __init__(self, source):
        self.source = source
        self._cache = {}

    def fetch(self, key):
        if key in self._cache:
            return self._cache[key]
        value = self.source[key]
        self._cache[key] = value
        return value
