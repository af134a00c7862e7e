class Seen:
    """Remembers when each key was first seen."""

    def __init__(self):
        self._first = {}
        self.hits = 0

    def _claim(self, key, now):
        first = self._first.get(key)
        if first is None:
            first = self._first[key] = now
            return first, None
        self.hits += 1
        return (first, self.hits)

    def first_seen(self, key, now):
        first, _ = self._claim(key, now)
        return first

    def describe(self, key, now):
        first, hits = self._claim(key, now)
        return f"{key}: first {first}, {hits or 0} hits"
