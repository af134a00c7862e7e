class Cache:
    def __init__(self, limit=10):
        self.limit = limit
        self.entries = {}

    def put(self, key, amount, *, replace=True):
        """Store ``amount`` under ``key``.

        A *amount* that is already stored is kept unless *replace*.

        :param key: the key
        :param amount: what to store
        :type amount: object
        """
        if key in self.entries and not replace:
            return self.entries[key]
        self.entries[key] = amount
        return amount

    def put_all(self, pairs):
        for key, value in pairs:
            self.put(key, amount=value)
