class Cache:
    def __init__(self, limit=10):
        self.limit = limit
        self.entries = {}

    def put(self, key, val, *, replace=True):
        """Store ``val`` under ``key``.

        A *val* that is already stored is kept unless *replace*.

        :param key: the key
        :param val: what to store
        :type val: object
        """
        if key in self.entries and not replace:
            return self.entries[key]
        self.entries[key] = val
        return val

    def put_all(self, pairs):
        for key, value in pairs:
            self.put(key, val=value)
