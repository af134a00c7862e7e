class Region:
    def __init__(self, lines):
        self.lines = lines

    def span_of(self, line, word):
        return self.lines.index(line), word
