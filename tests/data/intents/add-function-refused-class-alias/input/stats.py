"""Running statistics."""


class Stats:
    def __init__(self, values):
        self.values = list(values)

    def _calc_min(self):
        return min(self.values)

    minimum = property(_calc_min)

    def total(self):
        return sum(self.values)
