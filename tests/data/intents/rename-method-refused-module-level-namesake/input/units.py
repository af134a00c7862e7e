def compute_total(lengths):
    return sum(length.metres for length in lengths)


class Length:
    def __init__(self, metres):
        self.metres = metres

    def compute_total(self, *others):
        return self.metres + compute_total(others)
