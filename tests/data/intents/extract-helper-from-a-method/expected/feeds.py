from operator import itemgetter


class Feed:
    def __init__(self, entries):
        self.entries = entries

    def summary(self, limit, sep=" | "):
        """One line for the newest entries."""
        titles = self._titles(limit)
        heading = "%d entries" % len(self.entries)
        return heading + ": " + sep.join(titles)

    def _titles(self, limit):
        newest = sorted(self.entries, key=itemgetter("date"), reverse=True)
        titles = []
        for entry in newest[:limit]:
            if entry.get("draft"):
                titles.append("[draft] " + entry["title"])
            else:
                titles.append(entry["title"])
        return titles

    def count(self):
        return len(self.entries)
