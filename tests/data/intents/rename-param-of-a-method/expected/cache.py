class Cache:
    def __init__(self, limit=10):
        self.limit = limit
        self.entries = {}

    def put(self, key, value, *, replace=True):
        """Store ``value`` under ``key``.

        A *value* that is already stored is kept unless *replace*.

        :param key: the key
        :param value: what to store
        :type value: object
        """
        if key in self.entries and not replace:
            return self.entries[key]
        self.entries[key] = value
        return value

    def put_all(self, pairs):
        for key, value in pairs:
            self.put(key, value=value)
