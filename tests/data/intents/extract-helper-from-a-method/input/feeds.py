from operator import itemgetter


class Feed:
    def __init__(self, entries):
        self.entries = entries

    def summary(self, limit, sep=" | "):
        """One line for the newest entries."""
        newest = sorted(self.entries, key=itemgetter("date"), reverse=True)
        titles = []
        for entry in newest[:limit]:
            if entry.get("draft"):
                titles.append("[draft] " + entry["title"])
            else:
                titles.append(entry["title"])
        heading = "%d entries" % len(self.entries)
        return heading + ": " + sep.join(titles)

    def count(self):
        return len(self.entries)
