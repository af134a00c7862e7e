class Seen:
    """Remembers when each key was first seen."""

    def __init__(self):
        self._first = {}
        self.hits = 0

    def _claim(self, key, now):
        first = self._first.get(key)
        if first is None:
            first = self._first[key] = now
            return {"first": first, "hits": None}
        self.hits += 1
        return {"first": first, "hits": self.hits}

    def first_seen(self, key, now):
        first = self._claim(key, now)["first"]
        return first

    def describe(self, key, now):
        result = self._claim(key, now)
        first, hits = result["first"], result["hits"]
        return f"{key}: first {first}, {hits or 0} hits"
